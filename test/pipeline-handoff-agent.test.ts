/**
 * A handoff as the people in it live it, with every component a process of its own (the api
 * included, as scripts/run.sh starts them) and a stand-in Telegram on loopback: a user's message
 * reaches the published flow's handoff step, the bot goes quiet, two agents (accounts of role
 * agent assigned to the bot, calling with their personal tokens) race to claim it through the
 * api's routes, the winner answers while the user goes on writing, and hands the conversation
 * back to the flow at a state of their choice. On Telegram and on the web channel.
 */
import { expect } from 'chai';
import { addTelegramBot, startFaultSystem, type FaultSystem } from './support/fault-system.ts';
import { HELP_FLOW } from './support/flows.ts';
import {
  inboxHandoff,
  readHandoff,
  telegramUser,
  userMessagesSeen,
  webUser,
  type ChatUser,
} from './support/handoff-chat.ts';
import { agent, asAgent, type Agent } from './support/handoffs.ts';
import { waitFor } from './support/services.ts';
import { createWebBot } from './support/web.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const RECEIPT = 'https://cdn.example.test/receipt.png';

describe('handoff end to end through the api, every component a process', function () {
  this.timeout(240_000);
  let system: FaultSystem | undefined;
  const users: ChatUser[] = [];

  before(async () => {
    system = await startFaultSystem();
  });

  after(async () => {
    await Promise.all(users.map((u) => u.close()));
    await system?.close();
  });

  /**
   * From the user's first message to the flow answering again after the hand back; `user` writes
   * to the bot `appId` (HELP_FLOW published).
   */
  const handoffRunsThrough = async (user: ChatUser, appId: string) => {
    const sys = system!;
    const [ana, bo] = [await agent(sys.edge, [appId]), await agent(sys.edge, [appId])];

    await user.say('hi');
    await user.waitShown(1, 'the menu');
    await user.say('help');
    await user.waitShown(2, 'the handoff message');
    const waiting = await inboxHandoff(sys, ana, appId);
    expect(waiting).to.include({ status: 'waiting', queue: 'billing' });
    const id = waiting.id;

    // The bot is quiet: what the user writes now is only for the agent, in order.
    for (const text of ['one', 'two', 'three']) await user.say(text);
    await waitFor(async () => (await userMessagesSeen(sys, ana, id)).length === 3, {
      timeoutMs: 60_000,
      what: 'the three messages in the handoff transcript',
    });
    expect(await userMessagesSeen(sys, ana, id)).to.deep.equal(['one', 'two', 'three']);

    // Two agents claim at once: one holds it.
    const claims = await Promise.all(
      [ana, bo].map((who) => asAgent(sys.edge, who, 'POST', `/v2/handoffs/${id}/claim`)),
    );
    expect(claims.map((c) => c.status).sort(), claims.map((c) => c.text).join(' | ')).to.deep.equal(
      [200, 409],
    );
    const winner: Agent = claims[0]!.status === 200 ? ana : bo;
    const loser: Agent = winner === ana ? bo : ana;
    const refused = claims.find((c) => c.status === 409)!;
    expect(refused.json.error.code).to.equal('BW_ERR_HANDOFF_CLAIMED');
    expect(refused.json.error.details.claimed_by).to.equal(winner.actor);

    // The winner answers (text, buttons, an image, text) while the user writes twice more.
    const reply = (clientMessageId: string, message: Record<string, unknown>) =>
      asAgent(sys.edge, winner, 'POST', `/v2/handoffs/${id}/messages`, {
        body: { client_message_id: clientMessageId, message },
      });
    const replies: [string, Record<string, unknown>][] = [
      ['r1', { message_type: 'text', text: 'Hello, this is a person.' }],
      [
        'r2',
        {
          message_type: 'button',
          text: 'Is it about an invoice?',
          buttons: [
            { id: 'yes', title: 'Yes' },
            { id: 'no', title: 'No' },
          ],
        },
      ],
      ['r3', { message_type: 'image', url: RECEIPT, caption: 'Your receipt' }],
      ['r4', { message_type: 'text', text: 'Anything else?' }],
    ];
    for (const [n, [clientMessageId, message]] of replies.entries()) {
      const sent = await reply(clientMessageId, message);
      expect(sent.status, sent.text).to.equal(202);
      expect(sent.json).to.deep.equal({
        turn_id: `agent:${id}:${clientMessageId}`,
        duplicate: false,
      });
      if (n === 1) await user.say('four');
      if (n === 2) await user.say('five');
    }
    // A POST retried with the same client message id sends nothing more.
    const retried = await reply('r1', replies[0]![1]);
    expect(retried.status, retried.text).to.equal(202);
    expect(retried.json.duplicate).to.equal(true);
    // The one who lost the race may neither answer nor hand back.
    const meddling = await asAgent(sys.edge, loser, 'POST', `/v2/handoffs/${id}/messages`, {
      body: { client_message_id: 'x1', message: { message_type: 'text', text: 'me too' } },
    });
    expect(meddling.status, meddling.text).to.equal(409);
    expect(meddling.json.error.code).to.equal('BW_ERR_HANDOFF_NOT_YOURS');

    const agentReplies = [
      'Hello, this is a person.',
      'Is it about an invoice? [Yes, No]',
      `[image ${RECEIPT}] Your receipt`,
      'Anything else?',
    ];
    const beforeHandBack = [
      'Menu: say help for a person.',
      'A person from billing will answer you.',
      ...agentReplies,
    ];
    await user.waitShown(beforeHandBack.length, 'the agent’s replies');
    // The user's messages reached the agent in order, once each.
    await waitFor(async () => (await userMessagesSeen(sys, ana, id)).length === 5, {
      timeoutMs: 60_000,
      what: 'the five messages in the handoff transcript',
    });
    expect(await userMessagesSeen(sys, winner, id)).to.deep.equal([
      'one',
      'two',
      'three',
      'four',
      'five',
    ]);
    // Each reply recorded once, as the winner's.
    const agentRows = async () =>
      (await readHandoff(sys, winner, id)).since.filter((r) => r.turn_id?.startsWith('agent:'));
    await waitFor(async () => (await agentRows()).every((r) => r.status === 'sent'), {
      timeoutMs: 30_000,
      what: 'the replies recorded as sent',
    });
    expect((await agentRows()).map((r) => [r.turn_id, r.message_type, r.sent_by])).to.deep.equal([
      [`agent:${id}:r1`, 'text', winner.actor],
      [`agent:${id}:r2`, 'button', winner.actor],
      [`agent:${id}:r3`, 'image', winner.actor],
      [`agent:${id}:r4`, 'text', winner.actor],
    ]);

    // Handed back at the survey: the flow speaks from there and answers the next message.
    const back = await asAgent(sys.edge, loser, 'POST', `/v2/handoffs/${id}/return`, {
      body: { state: 'survey' },
    });
    expect(back.status, back.text).to.equal(409);
    expect(back.json.error.code).to.equal('BW_ERR_HANDOFF_NOT_YOURS');
    const returned = await asAgent(sys.edge, winner, 'POST', `/v2/handoffs/${id}/return`, {
      body: { state: 'survey' },
    });
    expect(returned.status, returned.text).to.equal(202);
    await user.waitShown(beforeHandBack.length + 1, 'the survey');
    await user.say('great');
    await user.waitShown(beforeHandBack.length + 2, 'the answer to the survey');
    await sleep(1000); // a repeat would come right behind
    // Nothing else: no bot answer to one..five, every reply once and in order.
    expect(user.shown()).to.deep.equal([...beforeHandBack, 'How did we do?', 'Thanks: great.']);
    const { handoff } = await readHandoff(sys, winner, id);
    expect(handoff).to.include({
      status: 'returned',
      return_state: 'survey',
      claimed_by: winner.actor,
      ended_by: winner.actor,
    });
    const again = await asAgent(sys.edge, winner, 'POST', `/v2/handoffs/${id}/messages`, {
      body: { client_message_id: 'late', message: { message_type: 'text', text: 'late' } },
    });
    expect(again.status, again.text).to.equal(409);
    expect(again.json.error.code).to.equal('BW_ERR_HANDOFF_ENDED');
  };

  it('when a Telegram user asks for a person, then the bot is quiet, one of two racing agents claims, their replies and the user’s messages arrive in order once each, and hand back resumes the flow at the chosen state', async () => {
    const sys = system!;
    const bot = await addTelegramBot(sys, 'help desk telegram', HELP_FLOW);
    const user = telegramUser(sys, bot, '930001');
    users.push(user);
    await handoffRunsThrough(user, bot.appId);
  });

  it('when a web visitor asks for a person, then the same holds on the visitor’s event stream', async () => {
    const sys = system!;
    const bot = await createWebBot(sys.edge, { name: 'help desk web', flow: HELP_FLOW });
    const user = await webUser(sys, bot.appId);
    users.push(user);
    await handoffRunsThrough(user, bot.appId);
  });
});
