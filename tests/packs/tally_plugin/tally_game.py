"""The tally game: one rule and one command, added to eti-print without touching it."""

from __future__ import annotations

from eti_print.games import Game


class Tally(Game):
    name = "tally"
    rule_names = ("even-points",)

    def model(self, dataset):
        return dataset

    def rules(self, model, ctx=None):
        problems = []
        for _index, item, doc, path in model.located("cards.cards"):
            if item["points"] % 2:
                problems.append(doc.problem(path + ("points",), "points must be even"))
        return problems

    def template_globals(self, ctx):
        return {"tally_unit": "points"}

    def add_commands(self, subparsers):
        p = self.command(subparsers, "tally", self.run, help="the deck's total points")
        p.add_argument("pack", nargs="?", help="pack folder")

    def run(self, args):
        from eti_print.dataset import load_dataset
        ds = load_dataset(args.game_pack)
        print(f"total: {sum(c['points'] for c in ds.items('cards.cards'))}")
        return 0


GAME = Tally()
