"""from __future__ import annotations (PEP 563): annotations kept as their unparsed text, never
evaluated; the __future__ module and its feature records; dataclasses with string annotations."""
from __future__ import annotations
from __future__ import division, generator_stop
import __future__
from dataclasses import dataclass


def f(x: undefined_name, *args: List[int], y: "quoted" = 1, **kw: Dict[str, int]) -> Other:
    return x


print(f.__annotations__)


class C:
    a: int
    b: Optional[C] = None

    def m(self) -> C:
        return self


print(C.__annotations__, C.m.__annotations__)


@dataclass
class P:
    x: int
    y: list[int] = None


print(P(1), P.__annotations__)
print(annotations, division, __future__.annotations.getMandatoryRelease(), __future__.all_feature_names[-1])
print(__future__.CO_FUTURE_ANNOTATIONS, generator_stop.compiler_flag)


def g(a: "x" | None, b: typing.Dict[str,"v"], c: (int, str), d: tuple[()], e: Literal[1, -2, 'a'], h: [int,str], i: Callable[..., None], j: x.y.z) -> (int,):
    pass


print(g.__annotations__)
