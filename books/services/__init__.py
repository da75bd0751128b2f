"""Book ingestion and deletion: parse, chunk, extract, write in one transaction, embed.

Phases (each reported as done/total chunks to the job and to ``progress``):

* parse: decode and outline the file, split it into chunks (no database);
* extract: structural definitions, gazetteer and NER (or the LLM) per chunk;
* write: one transaction replaces the book's chunks and mentions, creating the
  entities the book introduces in bulk;
* embed: after commit, chunks are indexed for semantic search in batches.

Everything before "write" leaves the database untouched, so a failure there leaves
the previous version of the book (if any) as it was."""

# Read by callers from books.services.
from ..excerpts import context_excerpt  # noqa: E402, F401
from .ingest import (  # noqa: F401
    _book_ingest,
    _book_ingest_bytes,
    _Checked,
    _ingest_check,
    _parse_chunks,
    _read_source,
    _validate_title,
    book_delete,
    book_ingest,
    book_resolve,
    title_from_filename,
)
from .jobs import (  # noqa: F401
    BOOKS_GROUP,
    INGEST_JOB_TASK,
    RECOVER_TASK,
    _claim,
    _enqueue,
    _ingest_job_execute,
    _notify_failure,
    _recovery_scheduled,
    book_ingest_now,
    ingest_job_create,
    ingest_job_retry,
    ingest_job_run,
    ingest_jobs_recover,
    uploads_dir,
)
from .lexicon import (  # noqa: F401
    _candidates_lexicon,
    _definitions_relax,
    _lexicon,
    _new_id,
    _stored_names,
)
from .mentions import (  # noqa: F401
    _MENTION_FIELDS,
    _mentions_set,
    mentions_count,
    mentions_merge,
    mentions_merge_problems,
    mentions_merge_undo,
)
from .writing import (  # noqa: F401
    EMBED_BATCH,
    WRITE_BATCH,
    IngestResult,
    PhaseProgress,
    _book_entity_ids,
    _book_row,
    _book_write,
    _candidates_record,
    _chunk_mentions,
    _chunk_rows,
    _chunks_unindex,
    _embed_missing,
    _entities_for,
    _mention_entity,
    _Reporter,
    _search_available,
    books_missing_vectors,
    chunks_embed,
    logger,
)
