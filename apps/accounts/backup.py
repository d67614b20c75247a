"""Per-business backup and restore: one file holds a business's schema rows, its uploaded files and the
public-schema records that describe it.

It lives in accounts, above tenants, because a business's records include its people (memberships by
email and role): the tenants app below it never imports accounts.

Format: a zip file with
  manifest.json        format version, when, the migrations the schema was at, every table with its
                       columns, row count and SHA-256, the sequences, and the business's public records;
  data/<table>.copy    each table of the business's schema in PostgreSQL's COPY text format (exact: floats,
                       vectors, JSON and full-text columns round-trip byte for byte);
  media/...            the business's uploaded files (<schema>/... in the default storage: the local
                       disk or S3, read and written through Django's storage API only).

Why COPY and not ``pg_dump -n <schema>``: a dump names its schema, so restoring a business under another
address (a copy, or a slug that changed) would need a scratch database and a rename; ``pg_dump`` must
also be at least the server's version. COPY runs on the application's own connection, through one
REPEATABLE READ snapshot (a consistent backup while the business keeps answering), and restores into
any business whose schema is at the same migrations. Like ``pg_dump``, a restore needs the ``vector``
extension in the database first: ``manage.py migrate_schemas --shared`` creates it.

Public-schema records (the choice, see docs/security.md):
- the Business row (name, slug, reseller, widget key, active), its Domains, its Memberships (by email
  and role) and its website re-sync Schedule are recorded in the manifest. Invitations are not (their
  tokens are credentials) and users are never created: a restore re-grants roles to people who exist.
- ``restore`` into a new business under the backup's own slug (the business was deleted) brings back
  its widget key (embedded widgets keep working), its domains, members and schedule;
- ``restore`` under another slug makes a copy: new widget key, the default domain, members only when
  asked (``members=True``);
- ``restore`` into an existing business with ``replace=True`` drops and recreates its schema, then
  loads the backup; its public records are kept as they are.
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
import shutil
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from django.apps import apps as django_apps
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import connection, models, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django_q.models import Schedule
from django_tenants.utils import schema_exists

from apps.accounts.models import Membership, Role, User
from apps.accounts.services import membership_grant
from apps.tenants.db import use_public_schema
from apps.tenants.models import Business, Domain, Reseller
from apps.tenants.services import business_create, business_delete, business_host

logger = logging.getLogger(__name__)

FORMAT = "xorventa-business-backup"
VERSION = 1
CHUNK = 1 << 16
# Rows that migrations write into a new schema and that the backup replaces.
REPLACED_ON_RESTORE = {"django_content_type"}


class BackupError(Exception):
    """The backup cannot be made or restored (the message says why and what to do)."""


@dataclass
class BackupReport:
    path: Path
    business: str
    tables: int
    rows: int
    files: int
    bytes: int
    rows_by_table: dict[str, int] = field(default_factory=dict)


@dataclass
class RestoreReport:
    business: Business
    tables: int
    rows: int
    files: int
    members: list[str] = field(default_factory=list)
    members_missing: list[str] = field(default_factory=list)
    kept_public_key: bool = False


def _q(name: str) -> str:
    """A quoted SQL identifier (schema, table and column names come from the catalog, never from input)."""
    return '"' + name.replace('"', '""') + '"'


def _tables(schema: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename", [schema])
        return [row[0] for row in cursor.fetchall()]


def _columns(schema: str, table: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT attname FROM pg_attribute
               WHERE attrelid = (quote_ident(%s) || '.' || quote_ident(%s))::regclass
                 AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
               ORDER BY attnum""",
            [schema, table],
        )
        return [row[0] for row in cursor.fetchall()]


def _dependencies(schema: str) -> dict[str, set[str]]:
    """table -> the tables of the same schema it references (foreign keys)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT src.relname, dst.relname FROM pg_constraint c
               JOIN pg_class src ON src.oid = c.conrelid JOIN pg_namespace ns ON ns.oid = src.relnamespace
               JOIN pg_class dst ON dst.oid = c.confrelid JOIN pg_namespace nd ON nd.oid = dst.relnamespace
               WHERE c.contype = 'f' AND ns.nspname = %s AND nd.nspname = %s""",
            [schema, schema],
        )
        deps: dict[str, set[str]] = {}
        for src, dst in cursor.fetchall():
            if src != dst:
                deps.setdefault(src, set()).add(dst)
        return deps


def _load_order(tables: list[str], deps: dict[str, set[str]]) -> list[str]:
    ordered: list[str] = []
    done: set[str] = set()
    visiting: set[str] = set()

    def visit(table: str) -> None:
        if table in done:
            return
        if table in visiting:
            raise BackupError(f"foreign keys form a cycle through {table}: cannot order the restore")
        visiting.add(table)
        for dep in sorted(deps.get(table, ())):
            if dep in tables:
                visit(dep)
        visiting.discard(table)
        done.add(table)
        ordered.append(table)

    for table in tables:
        visit(table)
    return ordered


def _sequences(schema: str) -> list[dict[str, Any]]:
    """Sequences owned by columns of the schema's tables (serial and identity columns)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT t.relname, a.attname, s.relname FROM pg_depend d
               JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
               JOIN pg_class t ON t.oid = d.refobjid JOIN pg_namespace n ON n.oid = t.relnamespace
               JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
               WHERE n.nspname = %s AND d.deptype IN ('a', 'i') ORDER BY t.relname, a.attname""",
            [schema],
        )
        found = cursor.fetchall()
        out = []
        for table, column, sequence in found:
            cursor.execute(f"SELECT last_value, is_called FROM {_q(schema)}.{_q(sequence)}")  # noqa: S608 (quoted identifiers)
            last_value, is_called = cursor.fetchone()
            out.append({"table": table, "column": column, "last_value": last_value, "is_called": is_called})
        return out


def _migrations(schema: str) -> list[list[str]]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT app, name FROM {_q(schema)}.django_migrations ORDER BY app, name")  # noqa: S608 (quoted identifiers)
        return [list(row) for row in cursor.fetchall()]


def _public_records(business: Business) -> dict[str, Any]:
    schedules = [
        {
            "name": s.name,
            "func": s.func,
            "args": s.args,
            "schedule_type": s.schedule_type,
            "repeats": s.repeats,
            "minutes": s.minutes,
            "next_run": s.next_run.isoformat() if s.next_run else None,
        }
        for s in Schedule.objects.all()
        if s.args and _schedule_schema(s.args) == business.schema_name
    ]
    return {
        "name": business.name,
        "slug": business.slug,
        "schema_name": business.schema_name,
        "public_key": business.public_key,
        "is_active": business.is_active,
        "created_at": business.created_at.isoformat(),
        "reseller": {"slug": business.reseller.slug, "name": business.reseller.name},
        "domains": [
            {"domain": d.domain, "is_primary": d.is_primary} for d in business.domains.order_by("domain")
        ],
        "memberships": [
            {"email": m.user.email, "role": m.role}
            for m in Membership.objects.filter(business=business).select_related("user").order_by("pk")
        ],
        "schedules": schedules,
    }


def _schedule_schema(args: str) -> str | None:
    try:
        value = ast.literal_eval(args)
    except (ValueError, SyntaxError):
        return None
    return value[0] if isinstance(value, tuple) and value and isinstance(value[0], str) else None


class _CountingWriter:
    """Hashes and counts COPY data on its way into the zip member."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.sha = hashlib.sha256()
        self.rows = 0
        self.size = 0

    def write(self, data: bytes) -> None:
        self.out.write(data)
        self.sha.update(data)
        self.rows += data.count(b"\n")  # COPY text: one line per row, newlines in values are escaped
        self.size += len(data)


def _stored_files(prefix: str) -> Iterator[str]:
    """Every stored file name under the folder ``prefix`` (a prefix of keys on S3)."""
    try:
        folders, files = default_storage.listdir(prefix)
    except FileNotFoundError:
        return
    for name in sorted(files):
        yield f"{prefix}/{name}"
    for folder in sorted(folders):
        yield from _stored_files(f"{prefix}/{folder}")


def _delete_stored(prefix: str) -> None:
    for name in list(_stored_files(prefix)):
        default_storage.delete(name)


def _media_files(schema: str) -> Iterator[tuple[str, str]]:
    for name in _stored_files(schema):
        yield name, name[len(schema) + 1 :]


def business_backup(*, business: Business, path: Path | str) -> BackupReport:
    """Write ``business`` to ``path`` (a zip file): a consistent snapshot, taken while it keeps running."""
    path = Path(path)
    schema = business.schema_name
    use_public_schema()
    if not schema_exists(schema):
        raise BackupError(f"the schema {schema!r} of {business.slug} does not exist")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    tables_meta: list[dict[str, Any]] = []
    files = 0
    with (
        zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive,
        transaction.atomic(),
    ):
        with connection.cursor() as cursor:
            # One snapshot for every table: rows written during the backup are either all in or all out.
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        records = _public_records(business)
        migrations = _migrations(schema)
        for table in _tables(schema):
            if table == "django_migrations":
                continue
            columns = _columns(schema, table)
            cols = ", ".join(_q(c) for c in columns)
            with archive.open(f"data/{table}.copy", "w", force_zip64=True) as member:
                writer = _CountingWriter(member)
                with connection.cursor() as cursor:
                    raw = cursor.cursor  # psycopg's cursor: COPY streams without loading the table in memory
                    with raw.copy(f"COPY {_q(schema)}.{_q(table)} ({cols}) TO STDOUT") as copy:
                        for data in copy:
                            writer.write(bytes(data))
            tables_meta.append(
                {"name": table, "columns": columns, "rows": writer.rows, "sha256": writer.sha.hexdigest()}
            )
        sequences = _sequences(schema)
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            server_version = cursor.fetchone()[0]
        for name, relative in _media_files(schema):
            with (
                default_storage.open(name, "rb") as src,
                archive.open(f"media/{relative}", "w", force_zip64=True) as dst,
            ):
                shutil.copyfileobj(src, dst, CHUNK)
            files += 1
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "created_at": timezone.now().isoformat(),
            "server_version": server_version,
            "business": records,
            "migrations": migrations,
            "tables": tables_meta,
            "sequences": sequences,
            "files": files,
        }
        archive.writestr("manifest.json", json.dumps(manifest, indent=1, sort_keys=True))
    partial.replace(path)
    rows = {t["name"]: t["rows"] for t in tables_meta}
    logger.info(
        "backed up %s: %d tables, %d rows, %d files", business.slug, len(rows), sum(rows.values()), files
    )
    return BackupReport(
        path=path,
        business=business.slug,
        tables=len(tables_meta),
        rows=sum(rows.values()),
        files=files,
        bytes=path.stat().st_size,
        rows_by_table=rows,
    )


def backup_read_manifest(path: Path | str) -> dict[str, Any]:
    try:
        with zipfile.ZipFile(path) as archive:
            manifest = json.loads(archive.read("manifest.json"))
    except (OSError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise BackupError(f"{path} is not a business backup: {exc}") from None
    if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise BackupError(f"{path} is not a version-{VERSION} {FORMAT} file")
    return manifest


def _vector_extension_ready() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'")
        if cursor.fetchone() is None:
            raise BackupError(
                "the database has no `vector` extension: run `manage.py migrate_schemas --shared` first "
                "(it runs CREATE EXTENSION vector)"
            )


def _load(archive: zipfile.ZipFile, manifest: dict[str, Any], schema: str) -> int:
    """Load every table into ``schema`` (fresh, at the same migrations). Runs in the caller's transaction."""
    current = _migrations(schema)
    if current != manifest["migrations"]:
        missing = {tuple(m) for m in manifest["migrations"]} ^ {tuple(m) for m in current}
        raise BackupError(
            "the backup was taken at other migrations than this install's "
            f"(differences: {sorted(missing)[:6]}): restore it with the version that made it"
        )
    tables = {t["name"]: t for t in manifest["tables"]}
    present = set(_tables(schema)) - {"django_migrations"}
    if set(tables) != present:
        raise BackupError(
            f"tables differ: backup has {sorted(set(tables) ^ present)} that this schema lacks or adds"
        )
    rows = 0
    with connection.cursor() as cursor:
        for name in REPLACED_ON_RESTORE & set(tables):
            cursor.execute(f"DELETE FROM {_q(schema)}.{_q(name)}")  # noqa: S608 (quoted identifiers)
        for name in _load_order(sorted(tables), _dependencies(schema)):
            meta = tables[name]
            if _columns(schema, name) != meta["columns"]:
                raise BackupError(f"the columns of {name} differ from the backup's")
            cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {_q(schema)}.{_q(name)})")  # noqa: S608 (quoted identifiers)
            if cursor.fetchone()[0]:
                raise BackupError(f"{schema}.{name} is not empty: restore into a new business or use replace")
            sha = hashlib.sha256()
            cols = ", ".join(_q(c) for c in meta["columns"])
            with (
                archive.open(f"data/{name}.copy") as member,
                cursor.cursor.copy(f"COPY {_q(schema)}.{_q(name)} ({cols}) FROM STDIN") as copy,
            ):
                while chunk := member.read(CHUNK):
                    sha.update(chunk)
                    copy.write(chunk)
            if sha.hexdigest() != meta["sha256"]:
                raise BackupError(f"the data of {name} is damaged (checksum mismatch): nothing was restored")
            cursor.execute(f"SELECT count(*) FROM {_q(schema)}.{_q(name)}")  # noqa: S608 (quoted identifiers)
            loaded = cursor.fetchone()[0]
            if loaded != meta["rows"]:
                raise BackupError(f"{name}: {loaded} rows loaded, the backup has {meta['rows']}")
            rows += loaded
        for seq in manifest["sequences"]:
            cursor.execute(
                "SELECT pg_get_serial_sequence(%s, %s)", [f"{_q(schema)}.{_q(seq['table'])}", seq["column"]]
            )
            sequence = cursor.fetchone()[0]
            if sequence:
                cursor.execute("SELECT setval(%s, %s, %s)", [sequence, seq["last_value"], seq["is_called"]])
    return rows


def _file_columns(schema: str) -> list[tuple[str, str]]:
    """(table, column) of every FileField of a model stored in ``schema`` (its values name the schema)."""
    present = set(_tables(schema))
    return [
        (model._meta.db_table, str(f.column))
        for model in django_apps.get_models()
        if model._meta.db_table in present
        for f in model._meta.concrete_fields
        if isinstance(f, models.FileField) and f.column
    ]


def _extract_files(archive: zipfile.ZipFile, staged: str) -> int:
    count = 0
    for info in archive.infolist():
        if not info.filename.startswith("media/") or info.is_dir():
            continue
        relative = Path(info.filename[len("media/") :])
        if relative.is_absolute() or ".." in relative.parts:
            raise BackupError(f"unsafe file name in the backup: {info.filename}")
        with archive.open(info) as src:
            default_storage.save(f"{staged}/{relative.as_posix()}", File(src, name=relative.name))
        count += 1
    return count


def _rename_file_paths(old_schema: str, new_schema: str) -> None:
    """Stored file names start with the schema's folder: point them at the new one."""
    if old_schema == new_schema:
        return
    with connection.cursor() as cursor:
        for table, column in _file_columns(new_schema):
            target, col = f"{_q(new_schema)}.{_q(table)}", _q(column)
            statement = f"UPDATE {target} SET {col} = %s || substr({col}, %s) WHERE {col} LIKE %s"  # noqa: S608
            cursor.execute(statement, [f"{new_schema}/", len(old_schema) + 2, f"{old_schema}/%"])


def _swap_media(staged: str, schema: str) -> None:
    """Put the restored files in place of the business's folder (after the database committed).

    Through the storage API (S3 has no rename): the old files go, then each staged file is copied to
    its name and the staged copy deleted. The staging folder already holds every file of the backup,
    so a restore interrupted here is finished by restoring again."""
    _delete_stored(schema)
    for name in list(_stored_files(staged)):
        with default_storage.open(name, "rb") as src:
            default_storage.save(f"{schema}/{name[len(staged) + 1 :]}", File(src, name=Path(name).name))
        default_storage.delete(name)


def _grant_members(business: Business, memberships: list[dict[str, str]]) -> tuple[list[str], list[str]]:
    granted, missing = [], []
    for entry in memberships:
        user = User.objects.filter(email=entry["email"]).first()
        if user is None:
            missing.append(entry["email"])
            continue
        membership_grant(user=user, role=Role(entry["role"]), business=business)
        granted.append(entry["email"])
    return granted, missing


def _restore_schedules(business: Business, schedules: list[dict[str, Any]], old_schema: str) -> None:
    for entry in schedules:
        value = ast.literal_eval(entry["args"])
        args = repr((business.schema_name, *value[1:]))
        Schedule.objects.update_or_create(
            name=entry["name"].replace(old_schema, business.schema_name),
            defaults={
                "func": entry["func"],
                "args": args,
                "kwargs": None,
                "schedule_type": entry["schedule_type"],
                "repeats": entry["repeats"],
                "minutes": entry["minutes"],
                "next_run": parse_datetime(entry["next_run"]) if entry["next_run"] else timezone.now(),
            },
        )


def business_restore(
    *,
    path: Path | str,
    slug: str | None = None,
    name: str | None = None,
    reseller: Reseller | None = None,
    into: Business | None = None,
    replace: bool = False,
    members: bool | None = None,
) -> RestoreReport:
    """Restore a backup into a new business (``slug``, default the backup's own), or into ``into`` with
    ``replace=True``. All or nothing: on any error the new business (or the replaced schema's new
    content) is rolled back and the error says why."""
    manifest = backup_read_manifest(path)
    record = manifest["business"]
    use_public_schema()
    _vector_extension_ready()
    with zipfile.ZipFile(path) as archive:
        if into is not None:
            if not replace:
                raise BackupError(
                    f"{into.slug} exists: pass replace=True to drop its data and load the backup"
                )
            return _restore_replacing(archive, manifest, into)
        slug = (slug or record["slug"]).strip().lower()
        if reseller is None:
            reseller = Reseller.objects.filter(slug=record["reseller"]["slug"]).first()
            if reseller is None:
                raise BackupError(
                    f"no reseller {record['reseller']['slug']!r} here: name the reseller to restore under"
                )
        as_original = slug == record["slug"]
        staged = f".restoring-{slug}"
        _delete_stored(staged)
        try:
            business = business_create(reseller=reseller, name=name or record["name"], slug=slug)
        except Exception as exc:
            messages = getattr(exc, "messages", None)
            raise BackupError("; ".join(messages) if messages else str(exc)) from None
        try:
            with transaction.atomic():
                rows = _load(archive, manifest, business.schema_name)
                _rename_file_paths(record["schema_name"], business.schema_name)
                files = _extract_files(archive, staged)
                report = RestoreReport(
                    business=business, tables=len(manifest["tables"]), rows=rows, files=files
                )
                if as_original:
                    key_free = not Business.objects.filter(public_key=record["public_key"]).exists()
                    if key_free:
                        business.public_key = record["public_key"]
                    business.is_active = record["is_active"]
                    business.save(update_fields=["public_key", "is_active"])
                    report.kept_public_key = key_free
                    for domain in record["domains"]:
                        if (
                            domain["domain"] != business_host(slug)
                            and not Domain.objects.filter(domain=domain["domain"]).exists()
                        ):
                            Domain.objects.create(domain=domain["domain"], tenant=business, is_primary=False)
                    _restore_schedules(business, record["schedules"], record["schema_name"])
                if members if members is not None else as_original:
                    report.members, report.members_missing = _grant_members(business, record["memberships"])
        except BaseException:
            use_public_schema()
            business_delete(business=business)
            _delete_stored(staged)
            raise
        _swap_media(staged, business.schema_name)
    logger.info("restored %s from %s: %d rows", business.slug, path, report.rows)
    return report


def _restore_replacing(
    archive: zipfile.ZipFile, manifest: dict[str, Any], business: Business
) -> RestoreReport:
    schema = business.schema_name
    record = manifest["business"]
    # Validate what can be validated before anything is dropped.
    for table in manifest["tables"]:
        archive.getinfo(f"data/{table['name']}.copy")
    staged = f".restoring-{business.slug}"
    _delete_stored(staged)
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"DROP SCHEMA {_q(schema)} CASCADE")
            # PostgreSQL DDL is transactional: the schema is recreated (with its migrations) and loaded
            # in this transaction, so a failed load leaves the business as it was.
            business.create_schema(check_if_exists=False, verbosity=0)
            use_public_schema()
            rows = _load(archive, manifest, schema)
            _rename_file_paths(record["schema_name"], schema)
            files = _extract_files(archive, staged)
    except BaseException:
        use_public_schema()
        _delete_stored(staged)
        raise
    _swap_media(staged, schema)
    return RestoreReport(business=business, tables=len(manifest["tables"]), rows=rows, files=files)
