"""El Gran Dalmuti: the taxes (and the Merchants' exchange)."""

from __future__ import annotations

from domain.base import RuleViolation, event, int_field, rng
from domain.dalmuti.cards import _cards, _require_in_hand
from domain.dalmuti.evolve import _Out
from domain.dalmuti.state import _seat_in_phase


def _resolve_taxes(out: _Out) -> None:
    st = out.state
    if st["tax_pending"] or st["exchange_seat"] is not None:
        return
    order = st["order"]
    gd, ld, lp, gp = order[0], order[1], order[-2], order[-1]
    gd_gives = st["tax_chosen"][str(gd)]
    ld_gives = st["tax_chosen"][str(ld)]
    gp_pays = st["hands"][gp][:2]  # the two best (lowest; jesters are 13, the worst)
    lp_pays = st["hands"][lp][:1]
    out.emit(
        event(
            "TaxesPaid",
            {
                "transfers": [
                    {"from": gp, "to": gd, "count": len(gp_pays)},
                    {"from": gd, "to": gp, "count": len(gd_gives)},
                    {"from": lp, "to": ld, "count": len(lp_pays)},
                    {"from": ld, "to": lp, "count": len(ld_gives)},
                ]
            },
            {
                gd: {"with": gp, "gave": gd_gives, "received": gp_pays},
                gp: {"with": gd, "gave": gp_pays, "received": gd_gives},
                ld: {"with": lp, "gave": ld_gives, "received": lp_pays},
                lp: {"with": ld, "gave": lp_pays, "received": ld_gives},
            },
        )
    )


def _d_give_taxes(state: dict, command: dict) -> list[dict]:
    seat = _seat_in_phase(state, command, "taxes")
    order = state["order"]
    if seat not in (order[0], order[1]):
        raise RuleViolation(
            "not-your-turn", "only the Greater and the Lesser Dalmuti choose cards to give as taxes", "turn"
        )
    if seat not in state["tax_pending"]:
        raise RuleViolation("taxes-already-given", "you have already chosen the cards you give", "turn")
    cards = _cards(command)
    need = 2 if seat == order[0] else 1
    if len(cards) != need:
        who = "Greater Dalmuti" if need == 2 else "Lesser Dalmuti"
        raise RuleViolation("wrong-tax-count", f"the {who} gives exactly {need} card(s) to its Peon")
    _require_in_hand(state["hands"][seat], cards)
    out = _Out(state)
    out.emit(event("TaxChosen", {"seat": seat, "count": need}, {seat: {"cards": cards}}))
    _resolve_taxes(out)
    return out.events


def _d_exchange(state: dict, command: dict) -> list[dict]:
    seat = _seat_in_phase(state, command, "taxes")
    if seat != state["exchange_seat"]:
        raise RuleViolation(
            "not-your-turn", "only the highest Merchant may propose a Merchants' exchange, once per hand", "turn"
        )
    out = _Out(state)
    if command["type"] == "decline_exchange":
        out.emit(event("ExchangeDeclined", {"seat": seat}))
    else:
        other = int_field(command, "with")
        merchants = state["order"][2:-2]
        if other == seat or other not in merchants:
            raise RuleViolation("not-a-merchant", "the exchange must be made with another Merchant")
        # a stream of its own: in duplicate play every command of a deal gets the seed that shuffles the next
        # deal (domain.table.deal_seed), and the card drawn from that generator told the next deck's cards
        r = rng(f"merchants:{int_field(command, 'seed')}")
        mine = r.choice(state["hands"][seat])
        theirs = r.choice(state["hands"][other])
        out.emit(
            event(
                "MerchantsExchanged",
                {"seat": seat, "with": other},
                {
                    seat: {"with": other, "gave": [mine], "received": [theirs]},
                    other: {"with": seat, "gave": [theirs], "received": [mine]},
                },
            )
        )
    _resolve_taxes(out)
    return out.events
