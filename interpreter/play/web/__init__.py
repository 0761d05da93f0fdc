"""Browser play (``regelwerk serve``): a local server and a page that draws the view data."""
