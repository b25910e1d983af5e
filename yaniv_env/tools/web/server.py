"""Play Yaniv in the browser: ``yaniv serve [--host 127.0.0.1] [--port 8000]`` (the
``[web]`` extra: Flask).

A small local web app. The engine and the agents run on the server and the page is only a
view: it is sent what the person's seat may see (their hand; the other hands as sizes plus
the cards publicly known to be in them; every hand at a round's end, as the rules reveal
them) and sends back a move as ``{"seq": n, "seat": s, "action": id}``. The server checks
the game id, the sequence number (a replayed or stale request is refused), the seat and the
move (it must be legal for that seat now, by the engine), and refuses anything else with a
JSON error and a 4xx code, changing nothing.

API (JSON):

===========================  ======  ===================================================
``/``                        GET     the play page
``/api/options``             GET     the presets (with their player counts) and agents
``/api/opponents``           GET     ``?rules=standard&players=2``: the opponents offered
``/api/games``               POST    ``{"rules", "num_players", "opponents": [...],
                                     "seat"?, "seed"?}``: a new game, played up to the
                                     person's first decision
``/api/games/<id>``          GET     the game as the person sees it
``/api/games/<id>/move``     POST    ``{"seq", "seat", "action"}``: play a move; the others
                                     play on up to the person's next decision
``/api/games/<id>/replay``   GET     the finished game as a replay file (``yaniv replay``
                                     reads it; ``--html`` makes it a page)
===========================  ======  ===================================================

The opponents are the shipped trained agent (``ppo``) where one is shipped for the preset
and player count, and the baselines. Games live in memory (the oldest are dropped beyond
``max_games``).
"""

from __future__ import annotations

import argparse
import secrets
import sys
import threading
from collections import OrderedDict
from collections.abc import Mapping

from ...core.policies import make_policy
from ...core.seeding import agent_seed
from ...yaniv.engine import ranking
from ...yaniv.records import decide, make_record
from ...yaniv.rules import PRESETS, Rules, get_rules
from .pages import page
from .views import card_table, round_data, table_view

#: The baselines offered at every table, strongest first (``ppo`` comes first where shipped).
BASELINES = ("search", "heuristic", "score_heuristic", "greedy", "random")
#: The trained agent offered where the package ships one for the preset and player count.
SHIPPED = "ppo"


class Refusal(Exception):
    """A request the server refuses: ``status`` (4xx) and a message for the JSON error."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class Game:
    """One game in progress: the environment, the agents at the other seats, what has been
    played (for the replay) and the events the person has not been sent yet."""

    def __init__(self, game_id: str, rules: Rules, seat: int, opponents: list[str], seed: int):
        from ...yaniv.aec import raw_env

        n = rules.num_players
        self.id = game_id
        self.rules = rules
        self.seat = seat
        self.seed = seed
        self.labels = ["you"] * n
        self.policies: dict[int, object] = {}
        for s, name in zip([s for s in range(n) if s != seat], opponents, strict=True):
            self.policies[s] = make_policy(name, seed=agent_seed(seed, s), rules=rules)
            self.labels[s] = name
        self.env = raw_env(rules=rules, num_players=n)
        self.env.reset(seed=seed)
        self.me = self.env.possible_agents[seat]
        self.steps: list[list] = []
        self.notes: list[dict | None] = []
        self.seq = 0
        self.lock = threading.Lock()
        self.events: list[dict] = []
        self._advance()

    @property
    def over(self) -> bool:
        return not self.env.agents

    def _my_turn(self) -> bool:
        env = self.env
        return bool(env.agents) and env.agent_selection == self.me and not env.terminations[self.me]

    def _step(self, agent: str, action: int | None, note: dict | None = None) -> None:
        env = self.env
        self.steps.append([agent, action])
        self.notes.append(note)
        before = env.infos[agent].get("round_result") if agent in env.infos else None
        env.step(action)
        if action is None:
            return
        seat = self.env.possible_agents.index(agent)
        self.events.append({"seat": seat, "move": env.table.name(action)})
        rr = env.infos[agent].get("round_result")
        if rr is not None and rr is not before:
            self.events.append({"round_over": round_data(rr)})

    def _advance(self) -> None:
        """Let the others play (and the dead steps pass) up to the person's next decision
        or the end of the game."""
        env = self.env
        while env.agents and not self._my_turn():
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                self._step(agent, None)
                continue
            obs = env.observe(agent)
            policy = self.policies[env.possible_agents.index(agent)]
            action, note = decide(policy, obs["observation"], obs["action_mask"])
            self._step(agent, action, note)

    def legal(self) -> list[int]:
        return self.env.legal_actions() if self._my_turn() else []

    def play(self, body) -> None:
        """Check and play the person's move (``body``: the request's JSON), then the others'."""
        if not isinstance(body, Mapping):
            raise Refusal(400, 'the body must be a JSON object {"seq": n, "seat": s, "action": id}')
        for key in ("seq", "seat", "action"):
            value = body.get(key)
            if not isinstance(value, int) or isinstance(value, bool):
                raise Refusal(400, f"{key!r} must be an integer, got {value!r}")
        if body["seq"] != self.seq:
            raise Refusal(409, f"stale or replayed request: sequence {body['seq']}, the game is at {self.seq}")
        if self.over:
            raise Refusal(409, "the game is over")
        if body["seat"] != self.seat:
            raise Refusal(403, f"you play seat {self.seat}, not seat {body['seat']}")
        legal = self.legal()
        if not legal:
            raise Refusal(409, "it is not your turn")
        if body["action"] not in legal:
            raise Refusal(422, f"move {body['action']} is not legal here; your legal moves: {legal}")
        self.events = []
        self._step(self.me, body["action"])
        self._advance()
        self.seq += 1

    def view(self) -> dict:
        """What the person may see: their seat's table, their legal moves, the moves and
        round ends since their last move, and the result at the end."""
        g = self.env.game
        out = {
            "game": self.id,
            "seq": self.seq,
            "seat": self.seat,
            "rules": self.rules.name,
            "num_players": self.rules.num_players,
            "labels": self.labels,
            "table": table_view(g, seat=self.seat),
            "legal": [{"action": a, "name": self.env.table.name(a)} for a in self.legal()],
            "events": self.events,
            "over": self.over,
            "result": None,
        }
        if self.over:
            out["result"] = {"scores": list(g.scores), "ranking": ranking(g), "truncated": bool(g.game_truncated)}
        return out

    def record(self) -> dict:
        """The finished game as a replay record (the agents' annotations kept)."""
        if not self.over:
            raise Refusal(409, "the replay shows every hand: it can be downloaded when the game is over")
        return make_record(
            self.rules, self.rules.num_players, self.seed, self.steps, self.env.game, labels=self.labels,
            annotations=self.notes,
        )  # fmt: skip


def player_counts(rules: Rules) -> range:
    """The player counts a preset allows."""
    return range(2, rules.max_seats + 1)


class Lobby:
    """The games in progress (the oldest dropped beyond ``max_games``) and the opponents
    each table offers."""

    def __init__(self, max_games: int = 200, shipped: bool = True):
        self.max_games = max_games
        self.shipped = shipped
        self.games: OrderedDict[str, Game] = OrderedDict()
        self._shipped: dict[tuple[str, int], bool] = {}
        self._lock = threading.Lock()

    def rules(self, preset, players) -> Rules:
        if preset not in PRESETS:
            raise Refusal(400, f"unknown rules {preset!r}; presets: {', '.join(PRESETS)}")
        if not isinstance(players, int) or isinstance(players, bool) or players not in player_counts(PRESETS[preset]):
            counts = player_counts(PRESETS[preset])
            raise Refusal(400, f"{preset} is played by {counts.start} to {counts.stop - 1} players, got {players!r}")
        return get_rules(preset, players)

    def opponents(self, preset, players) -> list[str]:
        """The agents offered at a table: the shipped one if there is one, then the baselines."""
        rules = self.rules(preset, players)
        key = (preset, players)
        if key not in self._shipped:
            self._shipped[key] = False
            if self.shipped:
                try:  # the shipped agent's factory refuses rules it has no model for
                    make_policy(SHIPPED, seed=0, rules=rules)
                    self._shipped[key] = True
                except (ValueError, ImportError):  # no model for these rules, or no torch
                    pass
        return ([SHIPPED] if self._shipped[key] else []) + list(BASELINES)

    def new_game(self, body) -> Game:
        if not isinstance(body, Mapping):
            raise Refusal(400, 'the body must be a JSON object {"rules", "num_players", "opponents"}')
        rules = self.rules(body.get("rules"), body.get("num_players"))
        n = rules.num_players
        seat, seed, opponents = body.get("seat", 0), body.get("seed"), body.get("opponents")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
            raise Refusal(400, f"seat must be between 0 and {n - 1}, got {seat!r}")
        if seed is None:
            seed = secrets.randbelow(2**31)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
            raise Refusal(400, f"seed must be an integer from 0 to 2**63 - 1, got {seed!r}")
        offered = self.opponents(rules.name, n)
        if not isinstance(opponents, list) or len(opponents) != n - 1 or not all(o in offered for o in opponents):
            raise Refusal(400, f"opponents must be a list of {n - 1} of {', '.join(offered)}, got {opponents!r}")
        try:
            game = Game(secrets.token_urlsafe(12), rules, seat, opponents, seed)
        except (ValueError, ImportError) as e:  # an agent that cannot be made here
            raise Refusal(400, f"cannot seat the opponents {opponents}: {e}") from None
        with self._lock:
            self.games[game.id] = game
            while len(self.games) > self.max_games:
                self.games.popitem(last=False)
        return game

    def get(self, game_id: str) -> Game:
        game = self.games.get(game_id)
        if game is None:
            raise Refusal(404, f"no game {game_id!r} (unknown, or dropped after {self.max_games} newer games)")
        return game


def create_app(max_games: int = 200, shipped: bool = True):
    """The Flask app (``app.config["LOBBY"]`` holds the games). ``shipped=False`` offers
    the baselines only (no trained agent: nothing loads torch)."""
    try:
        from flask import Flask, jsonify, request
    except ImportError:
        raise ImportError("yaniv serve needs Flask: pip install 'yaniv-env[web]'") from None

    app = Flask(__name__)
    lobby = app.config["LOBBY"] = Lobby(max_games, shipped)

    @app.errorhandler(Refusal)
    def refused(e: Refusal):
        return jsonify(error=e.message), e.status

    @app.errorhandler(404)
    @app.errorhandler(405)
    def not_here(e):
        return jsonify(error=f"{e.name}: {request.method} {request.path}"), e.code

    def body():
        data = request.get_json(silent=True)
        if data is None:
            raise Refusal(400, "the body must be JSON (Content-Type: application/json)")
        return data

    @app.get("/")
    def index():
        return page("play.html", {"cards": card_table()})

    @app.get("/api/options")
    def options():
        presets = [
            {"name": name, "players": list(player_counts(rules)), "description": rules.describe()}
            for name, rules in PRESETS.items()
        ]
        return jsonify(presets=presets, baselines=list(BASELINES), shipped=SHIPPED)

    @app.get("/api/opponents")
    def opponents():
        players = request.args.get("players", "")
        if not players.isdigit():
            raise Refusal(400, f"players must be a number, got {players!r}")
        return jsonify(opponents=lobby.opponents(request.args.get("rules"), int(players)))

    @app.post("/api/games")
    def new_game():
        game = lobby.new_game(body())
        with game.lock:
            return jsonify(game.view()), 201

    @app.get("/api/games/<game_id>")
    def show(game_id: str):
        game = lobby.get(game_id)
        with game.lock:
            return jsonify(game.view())

    @app.post("/api/games/<game_id>/move")
    def move(game_id: str):
        game = lobby.get(game_id)
        data = body()
        with game.lock:
            game.play(data)
            return jsonify(game.view())

    @app.get("/api/games/<game_id>/replay")
    def replay_file(game_id: str):
        game = lobby.get(game_id)
        with game.lock:
            response = jsonify(game.record())
        response.headers["Content-Disposition"] = f'attachment; filename="yaniv-{game.rules.name}-{game.seed}.json"'
        return response

    return app


def main(argv: list[str] | None = None) -> int:
    """``yaniv serve``."""
    p = argparse.ArgumentParser(prog="yaniv serve", description="Play Yaniv in the browser against the agents.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--baselines-only", action="store_true", help="offer the baselines only, not the shipped trained agent"
    )
    args = p.parse_args(argv)
    try:
        app = create_app(shipped=not args.baselines_only)
    except ImportError as e:
        print(f"yaniv serve: {e}", file=sys.stderr)
        return 2
    print(f"Open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops the server).")
    app.run(host=args.host, port=args.port, threaded=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
