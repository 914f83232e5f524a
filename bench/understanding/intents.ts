/**
 * A shop's support bot with two global intents as an operator declares them (a person, and
 * cancelling an order), and first messages people send such a bot, each labelled with the intent
 * it means or none. Most first messages mean no intent: greetings, thanks, questions the flow
 * answers itself. A global intent taken wrongly hands a greeting to a person or cancels nothing
 * the user asked to cancel, so wrong matches matter most here. The examples were written before
 * the messages, and none of them is a message.
 */
import type { Kind } from './menus.ts';

export interface FirstMessage {
  text: string;
  /** The intent it means; null when it means none. */
  means: string | null;
  kind: Kind;
}

export const INTENTS = [
  {
    name: 'human',
    description: 'the user wants a person, not the bot',
    examples: ['talk to a human', 'I want to speak to someone', 'connect me with an agent'],
  },
  {
    name: 'cancel',
    description: 'the user wants to cancel an order',
    examples: ['cancel my order', 'I want to cancel', 'stop my order please'],
  },
];

const m = (text: string, means: string | null, kind: Kind): FirstMessage => ({ text, means, kind });

export const FIRST_MESSAGES: FirstMessage[] = [
  // A person.
  m('I want to talk to a person', 'human', 'paraphrase'),
  m('can I speak to a real human', 'human', 'paraphrase'),
  m('get me an agent', 'human', 'paraphrase'),
  m('is there a person I can talk to', 'human', 'paraphrase'),
  m('human please', 'human', 'short'),
  m('let me talk to customer service', 'human', 'paraphrase'),
  m('I would like to chat with a member of your staff', 'human', 'paraphrase'),
  m('your bot is useless, put me through to someone', 'human', 'indirect'),
  m('real person', 'human', 'short'),
  m('representative', 'human', 'short'),
  m('talk to humna', 'human', 'typo'),
  m('quiero hablar con una persona', 'human', 'foreign'),
  m('🙋 a person please', 'human', 'emoji'),
  m('can someone from support call me back', 'human', 'indirect'),
  // Cancelling.
  m('please cancel order 4417', 'cancel', 'paraphrase'),
  m('I changed my mind and don’t want the order anymore', 'cancel', 'indirect'),
  m('how do I cancel what I bought yesterday', 'cancel', 'paraphrase'),
  m('cancel', 'cancel', 'short'),
  m('cancle my order', 'cancel', 'typo'),
  m('I ordered the wrong size, stop the order', 'cancel', 'indirect'),
  m('annuler ma commande', 'cancel', 'foreign'),
  m('❌ order', 'cancel', 'emoji'),
  // Nothing the intents cover: the flow's greeting or its own menu answers them.
  m('hi', null, 'none'),
  m('hello', null, 'none'),
  m('hi there', null, 'none'),
  m('hey', null, 'none'),
  m('good morning!', null, 'none'),
  m('hello, is this the shop?', null, 'none'),
  m('thanks', null, 'none'),
  m('thank you so much', null, 'none'),
  m('ok', null, 'none'),
  m('yes', null, 'none'),
  m('I need help', null, 'none'),
  m('can you help me', null, 'none'),
  m('what can you do?', null, 'none'),
  m('is anyone there', null, 'none'),
  m('where is my parcel', null, 'none'),
  m('do you ship to Norway', null, 'none'),
  m('what are your opening hours', null, 'none'),
  m('how much is delivery', null, 'none'),
  m('I want to order a blue jacket', null, 'none'),
  m('do you have this in XL', null, 'none'),
  m('my order is late', null, 'none'),
  m('can I change the delivery address', null, 'none'),
  m('how do I return a jacket', null, 'none'),
  m('are you a bot?', null, 'none'),
  m('👋', null, 'none'),
  m('bonjour', null, 'none'),
  m('I love your shop', null, 'none'),
  m('what is the status of my refund', null, 'none'),
];
