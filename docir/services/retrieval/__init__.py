"""Reading and ranking: get, query, search, context, skeletons, visibility, federation across stores."""
