"""The published results: the one aggregated table the site reads and its format
(aggregate.py, table_format.py), what small buckets hide (disclosure.py), the open exports
and the results repo's dataset card (exports.py, results_card.py), ranks and bands
(ranking.py, bands.py), protocol cards and their markup (protocol_status.py, markup.py) and
how a number is written (number_format.py). The worker writes with it, the site reads with
it; it imports neither."""
