"""Reading: files (CSV, gzip, zip, Parquet) and in-memory tables into all-string columns."""
