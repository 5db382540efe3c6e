"""One module per generated page: the directive that builds it from the site's data."""
