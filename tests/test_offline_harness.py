"""The offline Discord drives a real bot: commands, autocomplete, buttons, selects, files, DMs and errors go
through discord.py's own pipeline and come back as recorded messages."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands
from discord_offline import OfflineDiscord, OfflineError

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
TERRITORIES = ["Alaska", "Alberta", "Argentina", "Brazil", "North Africa"]


class Counter(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"counter:(?P<count>\d+)"):
    """A button that outlives the bot: its state is in its custom id."""

    def __init__(self, count: int) -> None:
        super().__init__(discord.ui.Button(label=f"Count {count}", custom_id=f"counter:{count}"))
        self.count = count

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> Counter:
        return cls(int(match["count"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(Counter(self.count + 1))
        await interaction.response.edit_message(content=f"count is {self.count + 1}", view=view)


class MapView(discord.ui.View):
    def __init__(self, owner_id: int) -> None:
        super().__init__(timeout=180)
        self.owner_id = owner_id

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.user.id != self.owner_id:
            await interaction.response.send_message("not your map", ephemeral=True)
            return False
        return True

    @discord.ui.button(label="Attack", style=discord.ButtonStyle.danger)
    async def attack(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        button.disabled = True
        await interaction.response.edit_message(content="attacking", view=self)

    @discord.ui.button(label="End turn")
    async def end_turn(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.send_message("turn ended")

    @discord.ui.select(placeholder="Pick a territory",
                       options=[discord.SelectOption(label=t, value=t.lower().replace(" ", "-")) for t in TERRITORIES])
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_message(f"picked {select.values[0]}", ephemeral=True)


class RenameForm(discord.ui.Modal, title="Rename the game"):
    name: discord.ui.TextInput[RenameForm] = discord.ui.TextInput(label="Name", max_length=20)
    reason: discord.ui.TextInput[RenameForm] = discord.ui.TextInput(label="Reason", required=False)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"renamed to {self.name.value} ({self.reason.value or 'no reason'})")


class RecordingTree(app_commands.CommandTree[commands.Bot]):
    errors: list[app_commands.AppCommandError]

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        self.errors.append(error)
        await interaction.response.send_message(f"error: {error.__cause__ or error}", ephemeral=True)


async def territory_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=t, value=t) for t in TERRITORIES if current.lower() in t.lower()]


def make_bot(*, sync: bool = False) -> commands.Bot:
    """A small bot using every Discord feature the harness must carry."""
    bot = commands.Bot(command_prefix=commands.when_mentioned, intents=discord.Intents.default(),
                       tree_cls=RecordingTree)
    tree: RecordingTree = bot.tree  # type: ignore[assignment]
    tree.errors = []
    bot.background_done = asyncio.Event()  # type: ignore[attr-defined]
    bot.background_tasks = set()  # type: ignore[attr-defined]

    game = app_commands.Group(name="game", description="Play a game")

    @game.command(name="place", description="Place armies")
    @app_commands.autocomplete(territory=territory_choices)
    async def place(interaction: discord.Interaction, territory: str, armies: int) -> None:
        await interaction.response.send_message(
            f"{interaction.user.display_name} placed {armies} on {territory} ({interaction.locale.value})")

    @game.command(name="invite", description="Invite a player")
    async def invite(interaction: discord.Interaction, player: discord.Member, hidden: bool = False) -> None:
        await interaction.response.send_message(f"{player.mention} ({player.display_name}) is invited",
                                                ephemeral=hidden)
        await player.send(f"{interaction.user.display_name} invites you to a game")

    settings = app_commands.Group(name="settings", description="Settings", parent=game)

    @settings.command(name="dice", description="Choose dice")
    async def dice(interaction: discord.Interaction, mode: app_commands.Range[int, 1, 3], reason: str = "") -> None:
        await interaction.response.send_message(f"dice {mode} {reason}".strip())

    tree.add_command(game)

    @tree.command(name="map", description="Show the map")
    async def show_map(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        file = discord.File(io.BytesIO(PNG), filename="map.png")
        embed = discord.Embed(title="World", description="Turn 1").set_image(url="attachment://map.png")
        embed.add_field(name="Player", value="alice")
        await interaction.followup.send("the map", file=file, embed=embed, view=MapView(interaction.user.id))

    @tree.command(name="counter", description="A persistent counter")
    async def counter(interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(Counter(0))
        await interaction.response.send_message("count is 0", view=view)

    @tree.command(name="secret", description="Only for you")
    async def secret(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("your cards: 3", ephemeral=True)

    @tree.command(name="remind", description="Answer now, post later")
    async def remind(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("I will remind you", ephemeral=True)
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)

        async def later() -> None:
            await asyncio.sleep(0.05)
            message = await channel.send("reminder: your turn")
            await message.edit(content="reminder: your turn (edited)")
            bot.background_done.set()  # type: ignore[attr-defined]

        bot.background_tasks.add(asyncio.create_task(later()))  # type: ignore[attr-defined]

    @tree.command(name="refuse", description="Thinks publicly, then refuses privately")
    async def refuse(interaction: discord.Interaction, fill_first: bool = False) -> None:
        await interaction.response.defer(thinking=True)
        if fill_first:  # fill the deferral in, so that what follows is a follow-up of its own
            await interaction.edit_original_response(content="…")
        else:
            await interaction.delete_original_response()
        await interaction.followup.send("you may not", ephemeral=True)
        if fill_first:
            await interaction.delete_original_response()

    @tree.command(name="boom", description="Fails")
    async def boom(interaction: discord.Interaction) -> None:
        raise ValueError("the dice rolled off the table")

    @tree.command(name="silent", description="Never answers")
    async def silent(interaction: discord.Interaction) -> None:
        return None

    @tree.command(name="long", description="Too long")
    async def long(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("x" * 2001)

    @tree.command(name="slow", description="Answers after the deadline")
    async def slow(interaction: discord.Interaction) -> None:
        await asyncio.sleep(0.05)
        await interaction.response.send_message("too late")

    @tree.command(name="upload", description="Reads an attachment")
    async def upload(interaction: discord.Interaction, image: discord.Attachment) -> None:
        data = await image.read()
        await interaction.response.send_message(f"{image.filename}: {len(data)} bytes")

    @tree.command(name="admin", description="Admins only")
    @app_commands.default_permissions(manage_guild=True)
    async def admin(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"manage_guild={interaction.permissions.manage_guild}")

    @tree.command(name="rename", description="Opens a form")
    async def rename(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(RenameForm())

    @tree.command(name="hang", description="Waits forever")
    async def hang(interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        await asyncio.Event().wait()

    async def setup_hook() -> None:
        bot.add_dynamic_items(Counter)
        if sync:
            await tree.sync()

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    return bot


@pytest.fixture
async def offline() -> AsyncIterator[OfflineDiscord]:
    async with OfflineDiscord(make_bot()) as discord_:
        yield discord_


async def test_subcommand_options_reach_the_callback(offline: OfflineDiscord) -> None:
    step = await offline.send_command("alice", "general", "game place", {"territory": "Brazil", "armies": 3},
                                      locale="no")
    assert [m.content for m in step] == ["alice placed 3 on Brazil (no)"]
    message = step[0]
    assert message.channel_name == "general" and not message.ephemeral and message.visible_to is None
    assert message.interaction_name == "/game place" and message.interaction_user == "alice"
    assert step.problems == []


async def test_autocomplete_returns_the_bots_choices(offline: OfflineDiscord) -> None:
    choices = await offline.autocomplete("alice", "general", "game place", {"territory": "al", "armies": 1},
                                         focused="territory")
    assert [c["name"] for c in choices] == ["Alaska", "Alberta"]


async def test_nested_group_and_range_checked_like_the_discord_client(offline: OfflineDiscord) -> None:
    step = await offline.send_command("alice", "general", "game settings dice", {"mode": 2, "reason": "fast"})
    assert step[0].content == "dice 2 fast"
    with pytest.raises(OfflineError, match="between 1 and 3"):
        await offline.send_command("alice", "general", "game settings dice", {"mode": 5})
    step = await offline.send_command("alice", "general", "game settings dice", {"mode": 5}, client_checks=False)
    assert step[0].content == "dice 5"


async def test_deferred_follow_up_fills_the_placeholder_with_file_embed_and_buttons(offline: OfflineDiscord) -> None:
    step = await offline.send_command("alice", "general", "map")
    assert len(step) == 1
    message = step[0]
    assert message.content == "the map" and not message.loading and not message.edited
    assert message.attachment("map.png").data == PNG
    assert message.embeds[0]["title"] == "World" and message.embeds[0]["image"]["url"] == "attachment://map.png"
    assert "Player: alice" in message.text
    assert message.button_labels == ["Attack", "End turn"]
    assert message.selects[0]["placeholder"] == "Pick a territory"


async def test_the_first_follow_up_after_a_public_thinking_is_public_even_once_the_placeholder_is_gone(
        offline: OfflineDiscord) -> None:
    # Discord: the first follow-up after a deferral takes the deferral's visibility; deleting the placeholder
    # first does not make an ephemeral follow-up private.
    await offline.send_command("alice", "general", "refuse")
    shown = offline.visible_to("bob", "general")
    assert [(m.content, m.ephemeral) for m in shown] == [("you may not", False)]
    # Filled in first (an edit), the deferral is answered: the next follow-up has its own flags.
    await offline.send_command("carol", "general", "refuse", {"fill_first": True})
    assert offline.visible_to("bob", "general") == shown
    assert [m.content for m in offline.visible_to("carol", "general")][-1:] == ["you may not"]
    assert offline.visible_to("carol", "general")[-1].ephemeral


async def test_buttons_and_selects_reach_the_view(offline: OfflineDiscord) -> None:
    await offline.send_command("alice", "general", "map")
    step = await offline.click("bob", "attack")
    assert [(m.content, m.visible_to) for m in step] == [("not your map", "bob")]
    step = await offline.click("alice", "ATTACK")
    assert step[0].content == "attacking" and step[0].edited
    assert step[0].buttons[0]["disabled"] is True
    assert step[0].versions[0].content == "the map"
    with pytest.raises(OfflineError, match="disabled"):
        await offline.click("alice", "Attack")
    step = await offline.select("alice", "North Africa")
    assert [(m.content, m.ephemeral) for m in step] == [("picked north-africa", True)]
    with pytest.raises(OfflineError, match="no option 'Peru'"):
        await offline.select("alice", "Peru")


async def test_missing_button_is_a_clear_error(offline: OfflineDiscord) -> None:
    await offline.send_command("alice", "general", "counter")
    with pytest.raises(OfflineError, match=r"no button 'Retreat'.*Count 0"):
        await offline.click("alice", "Retreat")


async def test_ephemeral_answers_are_seen_only_by_their_user(offline: OfflineDiscord) -> None:
    step = await offline.send_command("alice", "general", "secret")
    assert step[0].ephemeral and step[0].visible_to == "alice"
    assert step[0] in offline.visible_to("alice")
    assert step[0] not in offline.visible_to("bob")


async def test_user_option_resolves_to_a_member_and_dm_reaches_them(offline: OfflineDiscord) -> None:
    step = await offline.send_command("alice", "general", "game invite", {"player": "@bob", "hidden": "yes"})
    bob = offline.user("bob")
    answer, dm = step
    assert answer.content == f"<@{bob.id}> (bob) is invited" and answer.visible_to == "alice"
    assert dm.is_dm and dm.visible_to == "bob" and dm.content == "alice invites you to a game"
    assert offline.dms("bob") == [dm]
    assert offline.user("bob").id == bob.id  # ids are stable per name


async def test_background_task_is_awaited_before_the_step_ends(offline: OfflineDiscord) -> None:
    step = await offline.send_command("alice", "general", "remind")
    assert offline.bot.background_done.is_set()  # type: ignore[attr-defined]
    assert [m.content for m in step] == ["I will remind you", "reminder: your turn (edited)"]
    assert step[1].edited and step[1].versions[0].content == "reminder: your turn"
    assert [entry.action for entry in offline.server.log if entry.message_id == step[1].id] == ["create", "edit"]


async def test_tree_on_error_receives_command_exceptions(offline: OfflineDiscord) -> None:
    step = await offline.send_command("alice", "general", "boom")
    tree = offline.tree
    assert isinstance(tree, RecordingTree)
    assert isinstance(tree.errors[0], app_commands.CommandInvokeError)
    assert isinstance(tree.errors[0].original, ValueError)
    assert step[0].content == "error: the dice rolled off the table" and step[0].ephemeral


async def test_forms_are_shown_and_submitted(offline: OfflineDiscord) -> None:
    step = await offline.send_command("alice", "general", "rename")
    assert step == [] and step.problems == []
    _, form = offline.open_form("alice")
    assert form["title"] == "Rename the game"
    with pytest.raises(OfflineError, match="'Name' is required"):
        await offline.submit_form("alice", {"reason": "boring"})
    with pytest.raises(OfflineError, match="at most 20 characters"):
        await offline.submit_form("alice", {"name": "x" * 21})
    step = await offline.submit_form("alice", {"NAME": "Big War"})
    assert [m.content for m in step] == ["renamed to Big War (no reason)"]
    with pytest.raises(OfflineError, match="no form is open"):
        await offline.submit_form("alice", {"name": "again"})


async def test_dynamic_item_survives_a_restart() -> None:
    first = OfflineDiscord(make_bot())
    await first.setup()
    await first.send_command("alice", "general", "counter")
    await first.click("alice", "Count 0")
    second = await first.restart(make_bot())
    try:
        step = await second.click("bob", "Count 1")
        assert step[0].content == "count is 2" and step[0].button_labels == ["Count 2"]
        assert len(second.messages) == 1
    finally:
        await second.close()


async def test_problems_report_what_users_would_notice(offline: OfflineDiscord) -> None:
    step = await offline.send_command("alice", "general", "silent")
    assert step == [] and "did not answer /silent" in step.problems[0]
    step = await offline.send_command("alice", "general", "long")
    assert any("Must be 2000 or fewer in length" in p for p in step.problems)
    offline.server.response_deadline = 0.01
    step = await offline.send_command("alice", "general", "slow")
    assert step == [] and any("Unknown interaction" in p for p in step.problems)


async def test_strict_mode_raises_on_problems() -> None:
    async with OfflineDiscord(make_bot(), strict=True) as offline:
        with pytest.raises(OfflineError, match="did not answer /silent"):
            await offline.send_command("alice", "general", "silent")


async def test_unknown_commands_and_options_are_clear_errors(offline: OfflineDiscord) -> None:
    with pytest.raises(OfflineError, match=r"unknown command /attack; commands: .*/game place"):
        await offline.send_command("alice", "general", "attack")
    with pytest.raises(OfflineError, match="unknown subcommand 'join' of /game"):
        await offline.send_command("alice", "general", "game join")
    with pytest.raises(OfflineError, match="/game needs a subcommand"):
        await offline.send_command("alice", "general", "game")
    with pytest.raises(OfflineError, match="has no option 'dice'"):
        await offline.send_command("alice", "general", "game place", {"dice": 3})
    with pytest.raises(OfflineError, match="needs option 'armies'"):
        await offline.send_command("alice", "general", "game place", {"territory": "Peru"})
    with pytest.raises(OfflineError, match="whole number"):
        await offline.send_command("alice", "general", "game place", {"territory": "Peru", "armies": "many"})


async def test_default_permissions_and_member_permissions(offline: OfflineDiscord) -> None:
    with pytest.raises(OfflineError, match="needs manage_guild"):
        await offline.send_command("alice", "general", "admin")
    offline.set_permissions("alice", manage_guild=True)
    step = await offline.send_command("alice", "general", "admin")
    assert step[0].content == "manage_guild=True"


async def test_attachment_option_is_readable_by_the_bot(offline: OfflineDiscord) -> None:
    step = await offline.send_command("alice", "general", "upload", {"image": ("board.png", PNG)})
    assert step[0].content == f"board.png: {len(PNG)} bytes"


async def test_channels_are_created_on_demand(offline: OfflineDiscord) -> None:
    step = await offline.send_command("carol", "#war-room", "game place", {"territory": "Peru", "armies": 1})
    assert step[0].channel_name == "war-room"
    assert offline.guild is not None and offline.guild.get_channel(offline.channel("war-room").id) is not None
    assert offline.visible_to("carol", "general") == []


async def test_a_bot_that_never_finishes_times_out_clearly() -> None:
    async with OfflineDiscord(make_bot(), idle_timeout=0.1) as offline:
        with pytest.raises(OfflineError, match="still busy"):
            await offline.send_command("alice", "general", "hang")


async def test_command_sync_is_answered_and_recorded() -> None:
    async with OfflineDiscord(make_bot(sync=True)) as offline:
        names = [c["name"] for c in offline.server.commands[None]]
        assert {"game", "map", "counter"} <= set(names)
        assert any(r.method == "PUT" and r.path == "/applications/{application_id}/commands"
                   for r in offline.server.requests)


async def test_an_edit_of_a_message_older_than_an_hour_is_refused_with_30046() -> None:
    now = [1_800_000_000.0]
    async with OfflineDiscord(make_bot(), clock=lambda: now[0]) as d:
        channel = d.bot.get_partial_messageable(d.channel("general").id)
        message = await channel.send("panel")
        now[0] += 59 * 60
        await message.edit(content="panel, 59 minutes on")  # within the hour: edited
        assert d.message(message.id).content == "panel, 59 minutes on"
        now[0] += 2 * 60
        with pytest.raises(discord.HTTPException) as refused:
            await message.edit(content="panel, an hour on")
        assert refused.value.code == 30046
        assert d.message(message.id).content == "panel, 59 minutes on"
        await message.delete()  # deleting an old message is allowed
        assert d.message(message.id).deleted


async def test_a_thread_is_created_under_its_channel_and_the_bot_posts_in_it(offline: OfflineDiscord) -> None:
    general = offline.channel("general")

    async def open_thread() -> None:
        channel = offline.bot.get_channel(general.id)
        assert isinstance(channel, discord.TextChannel)
        thread = await channel.create_thread(name="Round 1, table 1", type=discord.ChannelType.public_thread)
        assert thread.parent_id == general.id
        await thread.send("the game begins")

    await offline.run(open_thread())
    (thread,) = offline.server.threads(general)
    assert thread.name == "Round 1, table 1" and thread not in offline.server.text_channels()
    assert [m.content for m in offline.messages if m.channel_id == thread.id] == ["the game begins"]
    assert isinstance(offline.bot.get_channel(thread.id), discord.Thread)
