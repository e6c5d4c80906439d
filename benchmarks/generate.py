"""Generate a deterministic docir store for benchmarks.

    python -m benchmarks.generate --docs 10000 --out /tmp/store [--seed 7] [--force]

writes `OUT/docs-schema.yaml` (docir's default schema) and `OUT/docs/<folder>/<slug>.md`
for N documents: decisions 40 %, architecture 20 %, issues 25 %, guides 15 %, with
frontmatter shaped like fixtures/stores/sample and 2-8 KB bodies of technical prose
(3-7 `##` sections, inline identifiers, the occasional fenced code block).

Everything comes from one `random.Random(seed)` and a fixed vocabulary, so the same
seed and size give byte-identical files. Also importable:

    from benchmarks.generate import generate_store
    ids = generate_store(Path("/tmp/store"), 1000, seed=7)
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import random
import re
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

GENERATOR_VERSION = 1  # bump when the output for a given seed changes (speed.py's cache key)

# --- the kinds of document ---------------------------------------------------------------

# (type, id prefix, folder, share of the store) -- matches docir/default_schema.yaml
TYPES: tuple[tuple[str, str, str, float], ...] = (
    ("decision", "adr", "decisions", 0.40),
    ("architecture", "arch", "architecture", 0.20),
    ("issue", "issue", "issues", 0.25),
    ("guide", "guide", "guides", 0.15),
)

# Base status mix per type (superseded decisions are made by `supersedes` edges on top).
STATUS_WEIGHTS: dict[str, tuple[tuple[str, int], ...]] = {
    "decision": (("accepted", 58), ("proposed", 17), ("rejected", 10), ("deprecated", 8), ("superseded", 7)),
    "architecture": (("current", 65), ("draft", 20), ("deprecated", 15)),
    "issue": (("open", 33), ("in-progress", 15), ("resolved", 42), ("wontfix", 10)),
    "guide": (("current", 75), ("draft", 15), ("deprecated", 10)),
}

SECTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # (always present, in this order; optional extras in canonical order)
    "decision": (("Context", "Decision", "Consequences"),
                 ("Alternatives considered", "Rollout", "Risks", "Open questions", "References")),
    "architecture": (("Overview", "Components"),
                     ("Data flow", "Storage", "Interfaces", "Failure modes", "Scaling", "Security", "Operations")),
    "issue": (("Symptom", "Impact"),
              ("Reproduction", "Root cause", "Workaround", "Fix", "Timeline", "Follow-ups")),
    "guide": (("Purpose", "Steps"),
              ("Prerequisites", "Configuration", "Examples", "Troubleshooting", "See also")),
}

OWNERS = ("@platform", "@billing", "@identity", "@data", "@infra", "@payments", "@search",
          "@growth", "@mobile", "@docs", "@security", "@sre")
PEOPLE = ("ana", "bo", "chen", "dara", "eli", "femi", "gus", "hana", "ivo", "jun", "kai", "lea")

# --- the vocabulary ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Topic:
    name: str
    tags: tuple[str, ...]
    terms: tuple[str, ...]  # noun phrases, lower case
    things: tuple[str, ...]  # plural nouns
    idents: tuple[str, ...]  # code identifiers: snake_case, CamelCase, --flags
    services: tuple[str, ...]


TOPICS: tuple[Topic, ...] = (
    Topic("sessions", ("sessions", "auth"),
          ("session store", "session expiry", "login flow", "session cookie", "sliding expiration", "logout"),
          ("sessions", "cookies", "logins", "session rows"),
          ("session_id", "SessionStore", "expires_at", "--session-ttl", "purge_expired_sessions", "SessionMiddleware"),
          ("session service", "auth service", "web tier")),
    Topic("tokens", ("auth", "security", "tokens"),
          ("token refresh", "access token", "refresh token", "signing key", "token rotation", "OAuth client"),
          ("tokens", "signing keys", "refresh tokens", "grants"),
          ("refresh_token", "TokenRefresher", "access_token_ttl", "--rotate-keys", "jwks_uri", "verify_signature"),
          ("auth service", "identity provider", "API gateway")),
    Topic("caching", ("caching", "performance"),
          ("cache invalidation", "read-through cache", "cache key", "cache hit ratio", "write-behind cache", "TTL"),
          ("cache entries", "cache misses", "hot keys", "cached pages"),
          ("cache_key", "CacheWarmer", "ttl_seconds", "--no-cache", "invalidate_prefix", "LruCache"),
          ("cache layer", "catalog service", "search service")),
    Topic("queues", ("queues", "reliability"),
          ("message queue", "dead-letter queue", "consumer group", "visibility timeout", "backpressure",
           "at-least-once delivery"),
          ("messages", "consumers", "jobs", "poison messages"),
          ("QueueConsumer", "max_in_flight", "dead_letter_topic", "--concurrency", "ack_deadline", "enqueue_job"),
          ("job runner", "webhook dispatcher", "notification service")),
    Topic("retries", ("reliability", "api"),
          ("retry policy", "exponential backoff", "idempotency key", "circuit breaker", "request timeout", "jitter"),
          ("retries", "timeouts", "duplicate requests", "failed calls"),
          ("RetryPolicy", "retry_after_ms", "idempotency_key", "--max-retries", "CircuitBreaker", "backoff_factor"),
          ("payment gateway", "API gateway", "webhook dispatcher")),
    Topic("schemas", ("schemas", "migrations", "storage"),
          ("schema migration", "schema version", "backfill", "column rename", "online migration", "event schema"),
          ("migrations", "columns", "schema changes", "backfills"),
          ("schema_version", "MigrationRunner", "add_column", "--dry-run", "SchemaRegistry", "backfill_batch_size"),
          ("primary database", "migration runner", "event bus")),
    Topic("billing", ("billing", "payments"),
          ("invoice run", "usage event", "proration", "billing cycle", "tax calculation", "payment retry"),
          ("invoices", "usage events", "line items", "refunds"),
          ("invoice_runs", "InvoiceBuilder", "usage_events", "--billing-date", "apply_proration", "LedgerEntry"),
          ("billing service", "payment gateway", "ledger")),
    Topic("search", ("search", "performance"),
          ("search index", "ranking function", "query parser", "relevance tuning", "reindex job", "synonym list"),
          ("queries", "documents", "index segments", "facets"),
          ("SearchIndexer", "bm25_weight", "reindex_all", "--shard-count", "QueryParser", "analyzer_name"),
          ("search service", "indexer", "catalog service")),
    Topic("observability", ("observability", "operations"),
          ("request tracing", "structured logging", "error budget", "latency histogram", "alert rule",
           "trace sampling"),
          ("metrics", "spans", "alerts", "log lines"),
          ("trace_id", "MetricsExporter", "sample_rate", "--log-level", "emit_histogram", "AlertRouter"),
          ("telemetry pipeline", "API gateway", "on-call tooling")),
    Topic("deploys", ("deploys", "infra"),
          ("blue-green deploy", "canary release", "feature flag", "rollback plan", "deploy pipeline", "config drift"),
          ("deploys", "releases", "feature flags", "rollbacks"),
          ("FeatureFlags", "canary_percent", "deploy_id", "--skip-canary", "rollout_stage", "ReleaseTrain"),
          ("deploy pipeline", "config service", "web tier")),
    Topic("storage", ("storage", "data"),
          ("read replica", "connection pool", "object storage", "retention policy", "sharding key", "vacuum schedule"),
          ("replicas", "connections", "rows", "snapshots"),
          ("pool_size", "ShardRouter", "retention_days", "--read-only", "ConnectionPool", "snapshot_interval"),
          ("primary database", "blob store", "reporting service")),
    Topic("ratelimits", ("api", "security", "performance"),
          ("rate limiter", "token bucket", "quota", "burst limit", "tenant isolation", "abuse detection"),
          ("requests", "quotas", "tenants", "throttled calls"),
          ("RateLimiter", "bucket_size", "requests_per_minute", "--burst", "tenant_id", "QuotaPolicy"),
          ("API gateway", "rate limiter", "edge proxy")),
)

TECHS = ("Redis", "PostgreSQL", "Kafka", "RabbitMQ", "SQLite", "S3", "gRPC", "OpenTelemetry",
         "Envoy", "Kubernetes", "protobuf", "JSON Schema", "Memcached", "Elasticsearch", "NATS", "nginx")
GENERAL_SERVICES = ("gateway", "scheduler", "export worker", "reporting service", "admin console",
                    "mobile backend", "partner API", "audit log")
GENERAL_THINGS = ("requests", "events", "writes", "reads", "batches", "records", "payloads", "workers",
                  "tenants", "clients", "nodes", "deploys")
ADJECTIVES = ("stale", "expired", "duplicate", "partial", "slow", "idempotent", "concurrent", "orphaned",
              "oversized", "out-of-order")
NUMBERS = ("2", "3", "5", "10", "15", "30", "50", "100", "250", "500", "1000")
UNITS = ("ms", "seconds", "minutes")
GENERAL_IDENTS = ("config.yaml", "--verbose", "request_id", "HealthCheck", "worker_count", "--region",
                  "BatchWriter", "max_batch_size", "DEFAULT_TIMEOUT", "on_shutdown")

SENTENCES = (
    "The {svc} reads {things} from {tech} and writes the result to `{ident}`.",
    "When a {term} goes {adj}, the {svc} refreshes it in the background instead of failing the request.",
    "We measured a p99 latency of {num} {unit} for {things} that miss the {term}.",
    "Retries use exponential backoff with jitter, capped at {num} attempts; the limit lives in `{ident}`.",
    "Every {term} carries a version number so that consumers can reject {adj} {gthings}.",
    "The {term} is owned by the {svc}; no other component writes to it directly.",
    "Under load the {svc} queues {gthings} in memory, which is why `{ident}` must stay small.",
    "A {adj} {term} used to surface as a timeout in the {svc2}, far from its cause.",
    "We chose {tech} because the team already operates it and its failure modes are well understood.",
    "The {svc2} calls the {svc} over {tech} with a deadline of {num} {unit}.",
    "Operators can override the default with `{ident}` when a region is degraded.",
    "Nothing in the {svc} assumes that {things} arrive in order; {adj} {gthings} are dropped and counted.",
    "The main cost is operational: one more {term} to monitor, back up and upgrade.",
    "If the {term} is unavailable, the {svc} falls back to the {svc2} and logs a warning with the `{ident2}`.",
    "This keeps the hot path free of network calls, at the price of {adj} {things} for up to {num} {unit}.",
    "Batches of {num} {gthings} are flushed together, which cut write amplification roughly in half.",
    "Before this change the {svc} held a lock across the whole {term}, so a slow client stalled everyone.",
    "The {term} and the {term2} are configured separately, which has confused new team members more than once.",
    "A nightly job compacts {things} older than {num} days and reports what it removed.",
    "Each {gthing} is keyed by `{ident}`, so a replay after a crash writes the same rows again.",
    "Load tests with {num} concurrent clients showed the {svc} saturating its connection pool first.",
    "The dashboard for the {svc} shows {things} per second, error rate and queue depth side by side.",
    "Clients written against the old {term} keep working; the {svc} translates at the edge.",
    "We do not retry {adj} {gthings}: they go to a dead-letter table for a human to look at.",
    "See `{ident}` in the {svc} for the one place where the {term} is decided.",
    "In staging the {term} is shortened to {num} {unit} so that expiry paths are exercised daily.",
    "The {svc} emits a metric for every {adj} {gthing} it rejects, tagged with the `{ident}`.",
    "Rolling this out takes two deploys: first the readers learn the new {term}, then the writers switch.",
    "Most incidents in the last quarter started with {adj} {things} in the {svc2}.",
    "{Tech} handles the fan-out; the {svc} only decides which {things} are eligible.",
    "A feature flag guards the new {term}, and `{ident}` turns it off without a deploy.",
    "The {svc} keeps a small in-process {term} in front of {tech}, invalidated on every write.",
    "Ownership moved to {owner} after the reorganisation, together with the on-call rotation.",
    "For {num} {unit} after a failover the {svc2} may serve {adj} {gthings}; this is accepted.",
    "Tests cover the {term} with a fake clock, so expiry is deterministic and fast to check.",
    "The schema for {things} is documented next to `{ident}` and validated on every write.",
)

CODE_BLOCKS = (
    ("yaml", "{ident_key}:\n  enabled: true\n  max_retries: {num}\n  timeout_ms: {num2}\n  backend: {tech_lower}\n"),
    ("python", (
        "def {func}(client, {arg}):\n    for attempt in range({num}):\n        try:\n"
        "            return client.call({arg}, timeout={num2})\n        except TimeoutError:\n"
        "            sleep(backoff(attempt))\n    raise {Cls}Error({arg})\n"
    )),
    ("sql", (
        "SELECT {arg}, count(*)\nFROM {table}\nWHERE created_at > now() - interval '{num} days'\n"
        "GROUP BY {arg}\nORDER BY 2 DESC\nLIMIT {num2};\n"
    )),
    ("sh", "{cmd} --region eu-west-1 {flag} --timeout {num2}\n{cmd} status --json | jq '.{arg}'\n"),
)

TITLES: dict[str, tuple[str, ...]] = {
    "decision": (
        "Use {tech} for the {term}",
        "Move the {term} from the {svc} to the {svc2}",
        "Keep {things} in {tech}",
        "Adopt a {term} for {gthings} in the {svc}",
        "Replace the {term} with {tech}",
        "Version the {term} of the {svc}",
        "Limit {things} per tenant in the {svc}",
        "Drop {adj} {things} at the {svc}",
        "Make the {term} idempotent in the {svc}",
        "Split the {svc} {term} into its own service",
    ),
    "architecture": (
        "The {svc}",
        "How the {term} works in the {svc}",
        "The {term} pipeline",
        "Data model of the {svc}",
        "{Things} between the {svc} and the {svc2}",
        "The {svc} and its {term}",
    ),
    "issue": (
        "{Adj} {things} after a deploy of the {svc}",
        "The {svc} times out under load",
        "The {term} grows without bound",
        "{Things} lost when the {svc2} restarts",
        "Duplicate {gthings} from the {svc}",
        "The {term} ignores `{ident}`",
        "Slow {term} in the {svc}",
    ),
    "guide": (
        "How to rotate the {term}",
        "Running the {svc} locally",
        "Debugging the {term}",
        "Writing a migration for the {svc}",
        "Operating the {term} on call",
        "Adding a new {term} to the {svc}",
        "Load testing the {svc}",
    ),
}

# Half the titles get one of these, so a big store has few exact duplicate titles.
TITLE_SUFFIXES = (
    " for {gthings}", " in the {svc2}", " after the {tech} upgrade", " for enterprise tenants",
    " in the EU region", " during peak hours", " for the mobile clients", " behind the {svc2}",
    " for batch {gthings}", " on {tech}",
)

DESCRIPTIONS: dict[str, tuple[str, ...]] = {
    "decision": (
        "The {svc} keeps its {term} in {tech} so that a restart loses nothing.",
        "We standardise on one {term} for {things}; teams stop rolling their own.",
        "{Things} go through the {svc}, which owns the {term} and its expiry.",
        "A {term} in front of the {svc2} bounds the damage of {adj} {gthings}.",
    ),
    "architecture": (
        "How the {svc} handles {things}, from the {term} to storage in {tech}.",
        "The components of the {svc}, how {things} flow through them, and where the {term} lives.",
        "Where the {term} sits between the {svc} and the {svc2}, and what fails when it is down.",
    ),
    "issue": (
        "{Adj} {things} reach the {svc2} because the {term} in the {svc} is not refreshed.",
        "Under load the {svc} spends most of its time on the {term}; {things} back up.",
        "After a restart of the {svc2} some {things} are processed twice.",
    ),
    "guide": (
        "How to change the {term} of the {svc} without downtime, step by step.",
        "What to check first when the {term} misbehaves, and which dashboards to open.",
        "Setting up the {svc} on a laptop, with {tech} in a container.",
    ),
}

DESCRIPTION_TAILS = (
    " Written after the incident of the spring.",
    " It replaces an older, undocumented convention.",
    " Review it with {owner} before changing the {term}.",
    " The trade-off is more moving parts for fewer pages at night.",
    "",
    "",
    "",
)

# --- generation ---------------------------------------------------------------------------------


@dataclass
class Doc:
    index: int
    type: str
    prefix: str
    folder: str
    id: str
    topic: Topic
    title: str = ""
    slug: str = ""
    description: str = ""
    status: str = ""
    tags: list[str] = field(default_factory=list)
    related: list[tuple[str, str]] = field(default_factory=list)
    owner: str | None = None
    verified: dt.date | None = None
    extra: list[str] = field(default_factory=list)  # extra frontmatter lines, already rendered
    body: str = ""


_SLUG_RE = re.compile(r"[^a-z0-9]+")
_FIELD_RE = re.compile(r"\{(\w+)\}")
_ARTICLE_RE = re.compile(r"\b([Aa]) (?=[aeioAEIO])")  # "a abuse detection" -> "an abuse detection"
_YAML_UNSAFE_RE = re.compile(r":(?:\s|$)|\s#|^[-?:,\[\]{}#&*!|>'\"%@`]")


def _yaml_scalar(text: str) -> str:
    """`text` plain when YAML reads it back unchanged, else double-quoted."""
    if _YAML_UNSAFE_RE.search(text):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


class Filler:
    """Fills `{slot}` templates from a topic's vocabulary and the general one, using one rng."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def fill(self, template: str, topic: Topic) -> str:
        rng = self.rng
        choice = rng.choice
        values: dict[str, str] = {}

        def slot(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in values:
                return values[name]
            key = name.lower()
            if key == "svc":
                value = choice(topic.services) if rng.random() < 0.75 else choice(GENERAL_SERVICES)
            elif key == "svc2":
                value = choice(GENERAL_SERVICES) if rng.random() < 0.6 else choice(topic.services)
            elif key in ("term", "term2"):
                value = choice(topic.terms)
            elif key == "things":
                value = choice(topic.things)
            elif key == "gthings":
                value = choice(GENERAL_THINGS) if rng.random() < 0.5 else choice(topic.things)
            elif key == "gthing":
                value = choice(GENERAL_THINGS)[:-1]
            elif key in ("ident", "ident2"):
                value = choice(topic.idents) if rng.random() < 0.8 else choice(GENERAL_IDENTS)
            elif key == "tech":
                value = choice(TECHS)
            elif key == "adj":
                value = choice(ADJECTIVES)
            elif key == "num":
                value = choice(NUMBERS)
            elif key == "unit":
                value = choice(UNITS)
            elif key == "owner":
                value = choice(OWNERS)
            else:  # pragma: no cover - a typo in a template
                raise KeyError(name)
            if name[0].isupper():
                value = value[0].upper() + value[1:]
            values[name] = value
            return value

        return _ARTICLE_RE.sub(r"\1n ", _FIELD_RE.sub(slot, template))


def _type_sequence(docs: int, rng: random.Random) -> list[int]:
    """Exactly the target share of each type (largest remainder), in a shuffled order."""
    raw = [share * docs for *_, share in TYPES]
    counts = [int(r) for r in raw]
    order = sorted(range(len(TYPES)), key=lambda i: (-(raw[i] - counts[i]), i))
    for i in order[: docs - sum(counts)]:
        counts[i] += 1
    seq = [i for i, c in enumerate(counts) for _ in range(c)]
    rng.shuffle(seq)
    return seq


def _doc_id(seed: int, index: int, prefix: str, taken: set[str]) -> str:
    salt = 0
    while True:
        digest = hashlib.sha256(f"docir-bench:{seed}:{index}:{prefix}:{salt}".encode()).hexdigest()
        doc_id = f"{prefix}-{digest[:12]}"
        if doc_id not in taken:
            taken.add(doc_id)
            return doc_id
        salt += 1


def _weighted(rng: random.Random, pairs: tuple[tuple[str, int], ...]) -> str:
    total = sum(w for _, w in pairs)
    pick = rng.random() * total
    for value, weight in pairs:
        pick -= weight
        if pick < 0:
            return value
    return pairs[-1][0]


def _sentence_case(text: str) -> str:
    return text[0].upper() + text[1:]


def _date_2026(rng: random.Random) -> dt.date:
    return dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(365))


def _code_block(filler: Filler, topic: Topic) -> str:
    rng = filler.rng
    lang, template = rng.choice(CODE_BLOCKS)
    snake = [i for i in topic.idents if "_" in i and not i.startswith("-")] or ["request_id"]
    camel = [i for i in topic.idents if i[:1].isupper()] or ["Worker"]
    flags = [i for i in topic.idents if i.startswith("--")] or ["--verbose"]
    values = {
        "ident_key": rng.choice(snake), "arg": rng.choice(snake), "table": rng.choice(snake),
        "func": rng.choice(snake), "Cls": rng.choice(camel), "flag": rng.choice(flags),
        "num": rng.choice(NUMBERS), "num2": rng.choice(NUMBERS),
        "tech_lower": rng.choice(TECHS).lower().replace(" ", "-"),
        "cmd": rng.choice(("svcctl", "opsctl", "deployctl", "dbctl")),
    }
    return f"```{lang}\n{template.format(**values)}```"


def _body(doc: Doc, filler: Filler) -> str:
    rng = filler.rng
    fixed, optional = SECTIONS[doc.type]
    want = rng.randint(3, 7)
    extra_count = max(0, min(len(optional), want - len(fixed)))
    chosen = set(rng.sample(range(len(optional)), extra_count))
    headings = list(fixed) + [h for i, h in enumerate(optional) if i in chosen]
    target = rng.randint(2100, 7400)  # bytes of prose; with headings and code the body stays in 2-8 KB
    per_section = target // len(headings)
    code_at = rng.randrange(len(headings)) if rng.random() < 0.3 else -1
    parts: list[str] = []
    for position, heading in enumerate(headings):
        parts.append(f"## {heading}\n\n")
        written = 0
        while written < per_section:
            # Sentence by sentence, so a section overshoots its share by one sentence at most.
            sentences: list[str] = []
            for _ in range(rng.randint(3, 6)):
                t = doc.topic if rng.random() < 0.8 else rng.choice(TOPICS)  # some neighbouring vocabulary
                sentence = filler.fill(rng.choice(SENTENCES), t)
                sentences.append(sentence)
                written += len(sentence) + 1
                if written >= per_section:
                    break
            parts.append(" ".join(sentences) + "\n\n")
            written += 1
        if position == code_at:
            block = _code_block(filler, doc.topic)
            parts.append(block + "\n\n")
    return "".join(parts).rstrip("\n") + "\n"


def _plan(docs: int, seed: int) -> list[Doc]:
    """Every document's frontmatter and body, from one rng, in generation order."""
    rng = random.Random(seed)
    filler = Filler(rng)
    taken_ids: set[str] = set()
    taken_slugs: dict[str, int] = {}
    plan: list[Doc] = []
    by_type: dict[str, list[int]] = {t: [] for t, *_ in TYPES}
    for index, type_index in enumerate(_type_sequence(docs, rng)):
        doc_type, prefix, folder, _ = TYPES[type_index]
        topic = rng.choice(TOPICS)
        doc = Doc(index, doc_type, prefix, folder, _doc_id(seed, index, prefix, taken_ids), topic)
        title = rng.choice(TITLES[doc_type])
        if rng.random() < 0.5:
            title += rng.choice(TITLE_SUFFIXES)
        doc.title = _sentence_case(filler.fill(title, topic))
        base = _SLUG_RE.sub("-", doc.title.lower()).strip("-")[:60].rstrip("-")
        key = f"{folder}/{base}"
        n = taken_slugs.get(key, 0) + 1
        taken_slugs[key] = n
        doc.slug = base if n == 1 else f"{base}-{n}"
        description = filler.fill(rng.choice(DESCRIPTIONS[doc_type]), topic)
        description += filler.fill(rng.choice(DESCRIPTION_TAILS), topic)
        doc.description = _sentence_case(description).replace("`", "")
        doc.status = _weighted(rng, STATUS_WEIGHTS[doc_type])
        tags = list(topic.tags[: rng.randint(1, len(topic.tags))])
        if rng.random() < 0.35:
            other = rng.choice(TOPICS).tags[0]
            if other not in tags:
                tags.append(other)
        if doc_type == "issue" and rng.random() < 0.5:
            tags.append(rng.choice(("bug", "incident", "performance")))
        if doc_type == "guide" and rng.random() < 0.4:
            tags.append(rng.choice(("onboarding", "writing", "tooling")))
        doc.tags = list(dict.fromkeys(tags))
        _relate(doc, plan, by_type, rng)
        if doc_type != "issue" or rng.random() < 0.6:
            doc.owner = rng.choice(OWNERS)
        if doc_type == "architecture" or (doc_type in ("decision", "guide") and rng.random() < 0.75):
            doc.verified = _date_2026(rng)
        if doc_type == "decision" and rng.random() < 0.3:
            people = rng.sample(PEOPLE, rng.randint(1, 3))
            doc.extra.append(f"decision-makers: [{', '.join(people)}]")
        doc.body = _body(doc, filler)
        plan.append(doc)
        by_type[doc_type].append(index)
    return plan


def _relate(doc: Doc, plan: list[Doc], by_type: dict[str, list[int]], rng: random.Random) -> None:
    """Edges to earlier documents only; a decision may supersede an earlier active one."""
    if not plan:
        return
    targets: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(kind: str, target: Doc) -> None:
        if target.id not in seen:
            seen.add(target.id)
            targets.append((kind, target.id))

    def recent(candidates: Sequence[int]) -> Doc | None:
        if not candidates:
            return None
        # Among the last 200 candidates, biased to the most recent, as real stores are.
        window = candidates[-200:]
        r = rng.random()
        return plan[window[min(len(window) - 1, int(len(window) * (1 - r * r)))]]

    if doc.type == "decision" and rng.random() < 0.12:
        live = [i for i in by_type["decision"][-200:] if plan[i].status in ("accepted", "proposed")]
        if live:
            old = plan[rng.choice(live)]
            old.status = "superseded"
            add("supersedes", old)
    if doc.type == "decision" and rng.random() < 0.15:
        issue = recent(by_type["issue"])
        if issue is not None:
            add("resolves", issue)
    if doc.type == "architecture" and rng.random() < 0.4:
        decision = recent(by_type["decision"])
        if decision is not None:
            add("implements", decision)
    for _ in range(rng.choice((0, 1, 1, 1, 2, 2, 3))):
        other = recent(range(len(plan)))
        if other is not None:
            add(rng.choice(("relates-to", "relates-to", "relates-to", "depends-on")), other)
    doc.related = targets


def _render(doc: Doc) -> str:
    lines = [
        "---",
        f"id: {doc.id}",
        f"type: {doc.type}",
        f"title: {_yaml_scalar(doc.title)}",
        f"description: {_yaml_scalar(doc.description)}",
        f"status: {doc.status}",
        f"tags: [{', '.join(doc.tags)}]",
    ]
    if doc.related:
        lines.append("related:")
        lines.extend(f"  - {kind}: {target}" for kind, target in doc.related)
    if doc.owner is not None:
        lines.append(f'owner: "{doc.owner}"')
    if doc.verified is not None:
        lines.append(f"verified: {doc.verified.isoformat()}")
    lines.extend(doc.extra)
    lines.append("---")
    return "\n".join(lines) + "\n\n" + doc.body


def default_schema_text() -> bytes:
    """docir's default schema, less an empty `exclude: []` and the comment over it: a generated store is read
    by older revisions too (speed_against_revision.py), which know no such key, and names no file to leave out."""
    local = Path(__file__).resolve().parents[1] / "docir" / "default_schema.yaml"
    if local.is_file():
        text = local.read_bytes()
    else:
        from importlib import resources  # an installed docir without the source tree

        text = resources.files("docir").joinpath("default_schema.yaml").read_bytes()
    return re.sub(rb"\n(?:#[^\n]*\n)*exclude: \[\]\n", b"", text)


def generate_store(out: Path, docs: int, seed: int = 7, *, overwrite: bool = False) -> list[str]:
    """Write a complete store of `docs` documents under `out`; return their ids in generation order.

    Refuses to touch an existing `out/docs` unless `overwrite` (then docs/ and .docir/ are replaced).
    """
    if docs < 1:
        raise ValueError("docs must be at least 1")
    out = Path(out)
    docs_dir = out / "docs"
    if docs_dir.exists():
        if not overwrite:
            raise FileExistsError(f"{docs_dir} exists; pass overwrite=True (--force) to replace it")
        shutil.rmtree(docs_dir)
        shutil.rmtree(out / ".docir", ignore_errors=True)
    plan = _plan(docs, seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "docs-schema.yaml").write_bytes(default_schema_text())
    for _, _, folder, _ in TYPES:
        (docs_dir / folder).mkdir(parents=True, exist_ok=True)
    for doc in plan:
        path = docs_dir / doc.folder / f"{doc.slug}.md"
        path.write_bytes(_render(doc).encode("utf-8"))
    return [doc.id for doc in plan]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, required=True, help="how many documents")
    parser.add_argument("--out", type=Path, required=True, help="the store root to write")
    parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    parser.add_argument("--force", action="store_true", help="replace an existing OUT/docs")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        ids = generate_store(args.out, args.docs, args.seed, overwrite=args.force)
    except (FileExistsError, ValueError) as exc:
        print(f"generate: {exc}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - started
    print(f"wrote {len(ids)} documents to {args.out} in {elapsed:.1f} s (seed {args.seed})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
