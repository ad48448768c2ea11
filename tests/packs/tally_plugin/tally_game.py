"""The tally game: one rule and one command, added to eti-print without touching it."""

from __future__ import annotations

from eti_print.api import Game, each_item


def even_points(model, ctx):
    """Every card's points are even."""
    return [card.problem("points must be even", field="points")
            for card in each_item(model, "cards.cards") if card.value["points"] % 2]


def run(args, pack):
    print(f"total: {sum(c['points'] for c in pack.dataset.items('cards.cards'))}")
    return 0


class Tally(Game):
    name = "tally"

    def model(self, dataset):
        return dataset

    def rules(self):
        return {"even-points": even_points}

    def template_globals(self, ctx):
        return {"tally_unit": "points"}

    def add_commands(self, subparsers):
        p = self.command(subparsers, "tally", run, help="the deck's total points")
        p.add_argument("pack", nargs="?", help="pack folder")


GAME = Tally()
