# The scorer (distribution `rankscore`, command `scorer`) as a container: entry point the
# CLI, offline, non-root, read-only friendly.
#   docker build -t rankscore .
#   docker run --rm --network none --read-only -v "$PWD:/data:ro" rankscore \
#       /data/solution.csv /data/submission.csv --json
FROM python:3.12-slim

LABEL org.opencontainers.image.title="rankscore" \
      org.opencontainers.image.licenses="MIT"

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# glibc's malloc (numpy's allocator) keeps blocks under 128 MiB in its heap and up to
# 256 MiB free at its top for reuse, rather than mapping each block over 32 MiB fresh and
# unmapping it when freed: a large run's arrays of tens of megabytes then reuse pages
# (docs/performance.md, "How"). Override with -e; the library sets nothing of its process.
ENV MALLOC_MMAP_THRESHOLD_=134217728 \
    MALLOC_TRIM_THRESHOLD_=268435456

# Run-time dependencies pinned to the versions the test suite passes with, then the
# package itself without resolving anything else, then a consistency check.
WORKDIR /build
COPY pyproject.toml README.md LICENSE ./
COPY scorer ./scorer
RUN python -m pip install --no-deps \
        numpy==2.4.6 \
        pandas==3.1.1 \
        pyarrow==26.0.1 \
        python-dateutil==4.0.0 \
        tzdata==2026.6 \
    && python -m pip install --no-deps . \
    && python -m pip check \
    && rm -rf /build \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin scorer

USER 10001
WORKDIR /data
ENTRYPOINT ["scorer"]
CMD ["--help"]
