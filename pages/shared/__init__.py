"""What every page shares, a module per job (pages import from the module they need):

    url_widgets   the selection in the URL: url_* widgets, link notices, the filter bar
    caching       slow scorers computed once per database version; asking before a slow replay
    report        CSV/Parquet downloads and the page as one HTML report
    numbers       the one number format, of a cell (`cell`) and of a table (`readable`)
    tables        column definitions and widths, a table with its downloads, a wide table, the win rates' look
    own_tables    a paper's own table as its suite's `TableLayout` says to show it
    links         links between pages (a match, a pool's matches in Transcripts)
    markdown      model and link text kept as text
    opening       a page's title, database check and filters
"""
