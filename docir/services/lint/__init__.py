"""Lint: the rules, the per-document and schema checks, and near-duplicate detection."""
