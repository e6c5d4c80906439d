"""Writing documents: add, update, archive, under the store's write lock."""
