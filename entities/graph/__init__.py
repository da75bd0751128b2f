"""The graph of relations: entities linked by normalised relations, TransE, PageRank.

``models`` (Relation, Edge, EdgeFact, KGEModel), ``relations`` (predicate → relation),
``edges`` (edges kept in step with facts), ``transe`` (training, pure torch),
``kge`` (the stored model and its vectors-room kinds), ``ppr`` (neighbours and
Personalized PageRank), ``services``/``selectors`` and the API and page on top.
"""
