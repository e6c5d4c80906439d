"""docir publish: this repository's current documents made the organisation store's, through org/'s statements."""
