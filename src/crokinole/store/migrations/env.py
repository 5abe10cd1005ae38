"""Alembic environment: run migrations on the connection the store hands over."""

from __future__ import annotations

from alembic import context

from crokinole.store.models import Base

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - the store always passes a connection
    raise RuntimeError("run migrations through crokinole.store.Store.migrate()")
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
