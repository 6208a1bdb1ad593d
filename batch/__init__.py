"""Batch work: many positions through many engine processes, locally or on a Dask cluster."""
