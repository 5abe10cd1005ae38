"""Score sheets of the score keeper: a device's sheets, and their read-only links.

:class:`SheetStore` keeps each sheet as the JSON the server gives it
(``ScoreSheet.to_dict()``), under its id and a share id for its read-only link.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import (
    select,
    update,
)

from crokinole.store.database import (
    Database,
    utc_now,
)
from crokinole.store.models import SheetRow
from crokinole.store.values import (
    SheetData,
    from_row,
)


class SheetStore(Database):
    """Score sheets, each under its id and its share id."""

    def create_sheet(
        self, sheet_id: str, share_id: str, device_token: str, data: dict[str, Any]
    ) -> None:
        """Store a new score sheet."""
        now = utc_now()
        with self._writing() as session:
            session.add(
                SheetRow(
                    id=sheet_id,
                    share_id=share_id,
                    device_token=device_token,
                    data_json=json.dumps(data),
                    created_at=now,
                    updated_at=now,
                )
            )

    def sheet(self, sheet_id: str) -> SheetData | None:
        """The sheet, or None."""
        with self._session() as session:
            row = session.get(SheetRow, sheet_id)
            return None if row is None else _sheet_data(row)

    def shared_sheet(self, share_id: str) -> SheetData | None:
        """The sheet behind a read-only link, or None."""
        with self._session() as session:
            row = session.scalars(select(SheetRow).where(SheetRow.share_id == share_id)).first()
            return None if row is None else _sheet_data(row)

    def save_sheet(self, sheet_id: str, data: dict[str, Any]) -> None:
        """Replace a sheet's content."""
        with self._writing() as session:
            session.execute(
                update(SheetRow)
                .where(SheetRow.id == sheet_id)
                .values(data_json=json.dumps(data), updated_at=utc_now())
            )

    def delete_sheet(self, sheet_id: str) -> None:
        """Remove a sheet."""
        with self._writing() as session:
            row = session.get(SheetRow, sheet_id)
            if row is not None:
                session.delete(row)

    def device_sheets(self, device_token: str) -> list[SheetData]:
        """The device's sheets, the latest first."""
        with self._session() as session:
            rows = session.scalars(
                select(SheetRow)
                .where(SheetRow.device_token == device_token)
                .order_by(SheetRow.updated_at.desc())
            ).all()
            return [_sheet_data(r) for r in rows]


def _sheet_data(row: SheetRow) -> SheetData:
    return from_row(SheetData, row, data=json.loads(row.data_json))
