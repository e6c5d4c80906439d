"""The retrieval quality benchmark: judged corpora and queries, and the scripts that score docir on them."""
