"""Search over the entity graph: the fact and entity kinds of the vectors room
(``kinds``), entity-aware ranking (``ranking``: ``search_by_entities``, ``fact_search``)
and its API. Vector storage itself lives in ``kgsite.vectors``.
"""
