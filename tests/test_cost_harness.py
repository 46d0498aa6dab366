"""The capped child-process harness of the hostile-cost tests measures what it says."""

from tests.cost import memory_bound, run_capped
from tests.paths import EXAMPLE


def test_a_capped_run_scores_and_reports_its_own_peak_memory():
    run = run_capped([EXAMPLE / "solution.csv", EXAMPLE / "submission.csv", "--json"])
    assert (run.returncode, run.timed_out, run.signalled) == (0, False, False)
    assert '"score": 0.65' in run.stdout
    decoded = sum(path.stat().st_size for path in EXAMPLE.iterdir())
    assert 20 * 2**20 < run.peak_rss_bytes <= memory_bound(decoded)


def test_an_allocation_past_the_cap_ends_the_child_not_the_test():
    # Under a cap too small to start, the child fails, or (OpenBLAS of numpy 2.2 retries
    # its allocation for ever) is stopped at its time limit; either way it ends, unscored.
    run = run_capped(["--version"], cap_bytes=64 * 2**20, timeout=10.0)
    assert run.returncode != 0, run.stderr[-500:]


def test_a_child_past_its_time_is_stopped_and_reported():
    run = run_capped(["--version"], timeout=0.0)
    assert run.timed_out
    assert run.signalled


def test_a_parquet_run_counts_its_decoder_too(tmp_path):
    # The decoder is a process of its own (its interpreter and pyarrow alone allocate some
    # 20 MiB beside their code): the figure is the command line's peak, or the decoder's
    # plus what the command line held while it ran, whichever is larger.
    import pandas as pd

    submission = tmp_path / "submission.parquet"
    pd.read_csv(EXAMPLE / "submission.csv", dtype=str, keep_default_na=False).to_parquet(
        submission, index=False
    )
    as_csv = run_capped([EXAMPLE / "solution.csv", EXAMPLE / "submission.csv", "--json"])
    as_parquet = run_capped([EXAMPLE / "solution.csv", submission, "--json"])
    assert as_csv.returncode == as_parquet.returncode == 0, as_parquet.stderr
    assert as_parquet.stdout == as_csv.stdout
    # Under the cap each CSV file is parsed by a child too (scorer/read/csv_parser.py), of
    # some 20 MiB or more: the submission's decoder stands where its CSV parser stood, at
    # least as large (a run whose decoder went uncounted would lose a whole child).
    assert as_parquet.peak_rss_bytes > 15 * 2**20
    assert as_parquet.peak_rss_bytes >= as_csv.peak_rss_bytes - 5 * 2**20
    assert as_csv.cpu_seconds > 0 and as_parquet.cpu_seconds > 0


def test_a_child_counts_with_what_the_command_line_held_while_it_ran(tmp_path):
    from tests.cost import _run_peak_kib

    peaks, kernel = tmp_path / "peaks", tmp_path / "own"
    peaks.mkdir()
    kernel.write_text("300 900")
    (peaks / "8").write_text("100")  # the command line's peak, reached after its child
    (peaks / "9").write_text("40")  # the child's
    (peaks / "9.parent").write_text("30")  # the command line's by the time the child ended
    assert _run_peak_kib(7, 8, peaks, kernel, 0) == 100
    (peaks / "9.parent").write_text("70")
    assert _run_peak_kib(7, 8, peaks, kernel, 0) == 70 + 40
    (peaks / "10.parent").write_text("90")  # a child that wrote no report: the kernel's
    assert _run_peak_kib(7, 8, peaks, kernel, 0) == 90 + 900


def test_a_process_that_wrote_no_peak_counts_as_the_kernel_saw_it(tmp_path):
    # The decoder ends with os._exit at its cap (no exit handler runs): the kernel's peak of
    # the children stands for it; a child that reported is counted by its own figure.
    from tests.cost import _run_peak_kib

    peaks, kernel = tmp_path / "peaks", tmp_path / "own"
    peaks.mkdir()
    kernel.write_text("300 900")  # the command line's peak, its largest child's (KiB)
    (peaks / "7").write_text("5")  # the launcher's own: never counted
    (peaks / "8").write_text("100")  # the command line's
    assert _run_peak_kib(7, 8, peaks, kernel, 0) == 100 + 900
    (peaks / "9").write_text("40")  # a decoder that reported
    assert _run_peak_kib(7, 8, peaks, kernel, 0) == 100 + 40
    (peaks / "8").unlink()
    assert _run_peak_kib(7, 8, peaks, kernel, 0) == 300 + 40


def test_a_report_cut_short_counts_as_none(tmp_path):
    # A decoder killed while it wrote its report leaves a part file: not read as a peak.
    from tests.cost import _run_peak_kib

    peaks, kernel = tmp_path / "peaks", tmp_path / "own"
    peaks.mkdir()
    kernel.write_text("300 900")
    (peaks / "8").write_text("100")
    (peaks / "9.part").write_text("")
    assert _run_peak_kib(7, 8, peaks, kernel, 0) == 100 + 900


def test_a_kernel_report_cut_short_counts_as_none(tmp_path):
    # Under the smallest caps the command line's exit handler can fail while it writes the
    # kernel's figures: an empty or partial report stands as no report (the launcher's peak).
    from tests.cost import _run_peak_kib

    peaks, kernel = tmp_path / "peaks", tmp_path / "own"
    peaks.mkdir()
    for cut_short in ("", "300"):
        kernel.write_text(cut_short)
        assert _run_peak_kib(7, 8, peaks, kernel, 250) == 250
