"""Sample code for tests/unit/test_mutate_runner.py: a property whose getter and setter share a
qualname (both with mutation points), and a method whose only `super()` a mutant can drop."""

from __future__ import annotations


class Base:
    def greet(self) -> str:
        return "hello"


class Sample(Base):
    def __init__(self) -> None:
        self._size = 1

    @property
    def size(self) -> int:
        return self._size + 1

    @size.setter
    def size(self, value: int) -> None:
        self._size = value - 1

    def greet(self) -> str:
        return super().greet()


def scaled(value: int, factor: int = 2, *, offset: int = 10) -> int:
    return value * factor + offset
