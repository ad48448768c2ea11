"""Print services' image sizes for ``export png --target``, from their published
card templates (see the README's export section and /shared PRINT-FACTS).

Every service wants 300 dpi with the bleed drawn as artwork around the trim;
they differ in the bleed.  The Game Crafter and DriveThruCards take 1/8 in
(37.5 px) per side, so a poker card is 825 x 1125 px (trim 750 x 1050);
MakePlayingCards' templates are 36 px per side, a poker card 822 x 1122 px.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError


@dataclass(frozen=True)
class Target:
    key: str
    service: str
    dpi: int
    bleed: float      # per side, points

    def size(self, trim: tuple[float, float]) -> tuple[int, int]:
        """The image size in pixels for a card of ``trim`` points."""
        from .faces import pixels
        scale = self.dpi / 72.0
        return (pixels(trim[0] + 2 * self.bleed, scale), pixels(trim[1] + 2 * self.bleed, scale))


#: 1/8 in, in points
EIGHTH_INCH = 9.0

TARGETS = {
    "tgc": Target("tgc", "The Game Crafter", 300, EIGHTH_INCH),
    "mpc": Target("mpc", "MakePlayingCards", 300, 36 * 72 / 300),
    "dtc": Target("dtc", "DriveThruCards", 300, EIGHTH_INCH),
}

#: Without ``--target``: the print-on-demand standard, 1/8 in bleed at 300 dpi.
DEFAULT = Target("pod", "print on demand", 300, EIGHTH_INCH)


def target(key: str | None) -> Target:
    if key is None:
        return DEFAULT
    try:
        return TARGETS[key]
    except KeyError:
        raise UsageError(f"unknown --target {key!r}; targets are "
                         f"{', '.join(TARGETS)}") from None
