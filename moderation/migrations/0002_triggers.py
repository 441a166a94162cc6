"""The audit trail is append-only in PostgreSQL itself: any UPDATE or DELETE of a row is
refused, whoever issues it (the ORM layer refuses too, with `AuditImmutable`). TRUNCATE,
which only the table's owner may run, stays possible: test databases are flushed with it."""

from django.db import migrations

FORWARD = r"""
CREATE OR REPLACE FUNCTION moderation_audit_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'moderation_auditrecord is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER moderation_audit_append_only
    BEFORE UPDATE OR DELETE ON moderation_auditrecord
    FOR EACH ROW EXECUTE FUNCTION moderation_audit_append_only();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS moderation_audit_append_only ON moderation_auditrecord;
DROP FUNCTION IF EXISTS moderation_audit_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("moderation", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
