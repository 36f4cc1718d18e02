"""The cluster file's volume fields (schema.py holds them): a shard's `disk: {size, baseline}`
and a collection's storage figures, `compression` (storageSize / size) and
`indexBytesPerDocument`; what the sandbox assumes without them is catalog/volumes.py's."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from zonectl.sandbox.rates import parse_size


class DiskSpec(BaseModel):
    """The volume holding a shard's dbpath: its size and what else lies on it, each a size
    like "20GiB", "500MB" or a number of bytes."""

    model_config = ConfigDict(extra="forbid")

    size: str | int
    baseline: str | int = 0
    # The shard's statfs of its dbpath fails (boost::filesystem::space sets an error code):
    # its dbStats answers fsUsedSize and fsTotalSize -1 (mongo:src/mongo/db/catalog/
    # database_impl.cpp, getStats), so no tool can read this volume.
    unreadable: bool = False

    @field_validator("size", "baseline")
    @classmethod
    def _size(cls, value: str | int) -> str | int:
        parse_size(value)  # ValueError: reported at the field's file:line:col
        return value

    @model_validator(mode="after")
    def _fits(self) -> DiskSpec:
        if self.size_bytes <= 0:
            raise ValueError("a volume's size must be above 0")
        if self.baseline_bytes > self.size_bytes:
            raise ValueError("the baseline is larger than the volume")
        return self

    @property
    def size_bytes(self) -> int:
        return parse_size(self.size)

    @property
    def baseline_bytes(self) -> int:
        return parse_size(self.baseline)


# A collection's `compression`: storageSize / size, above 0 (1: stored uncompressed; a little
# above 1 for data that does not compress and pays block overhead).
Compression = Field(default=None, gt=0, le=2)
IndexBytes = Field(default=None, ge=0)
