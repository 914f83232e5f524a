/**
 * Five real menus as operators write them (titles, and a few example phrases per option), and
 * free-text answers people give to them, each labelled with the option it means (or none) and
 * what kind of answer it is. The example phrases were written before the answers and none of them
 * is an answer; the answers were written to be varied, not to suit the model.
 */

export type Kind =
  | 'paraphrase' // says the option in other words
  | 'indirect' // describes the situation, names no option
  | 'typo'
  | 'emoji'
  | 'short' // one or two words
  | 'foreign' // not English
  | 'none' // means no option
  | 'ambiguous'; // means two options at once: a re-ask is right

export interface Answer {
  text: string;
  /** The option id it means; null when it means none (or two). */
  means: string | null;
  kind: Kind;
}

export interface MenuOption {
  id: string;
  title: string;
  examples: string[];
}

export interface Menu {
  name: string;
  prompt: string;
  options: MenuOption[];
  answers: Answer[];
}

const a = (text: string, means: string | null, kind: Kind): Answer => ({ text, means, kind });

export const MENUS: Menu[] = [
  {
    name: 'bike shop',
    prompt: 'How can I help?',
    options: [
      {
        id: 'book',
        title: 'Book a repair',
        examples: [
          'fix my bike',
          'my bike needs a repair',
          'book a service appointment',
          'flat tyre',
          'my brakes are not working',
        ],
      },
      {
        id: 'hours',
        title: 'Opening hours',
        examples: [
          'when are you open',
          'what time do you close',
          'are you open on Sunday',
          'opening times',
        ],
      },
      {
        id: 'ask',
        title: 'Ask a question',
        examples: [
          'I have a question',
          'can I ask something',
          'I want to know something',
          'question about a product',
        ],
      },
    ],
    answers: [
      a("I'd like to get my bike fixed", 'book', 'paraphrase'),
      a('my chain keeps falling off', 'book', 'indirect'),
      a('can you look at my brakes', 'book', 'indirect'),
      a('I need a service for my e-bike', 'book', 'paraphrase'),
      a('puncture!!', 'book', 'short'),
      a('i wnat to book a repiar', 'book', 'typo'),
      a('repair pls', 'book', 'short'),
      a('🔧 my bike please', 'book', 'emoji'),
      a('the gears are making a weird noise', 'book', 'indirect'),
      a('can I bring my bike in tomorrow for a tune-up', 'book', 'paraphrase'),
      a('my wheel got bent in a crash', 'book', 'indirect'),
      a('appointment to have the bike repaired', 'book', 'paraphrase'),
      a('je voudrais faire réparer mon vélo', 'book', 'foreign'),
      a('quiero reparar mi bicicleta', 'book', 'foreign'),
      a('when do you open?', 'hours', 'paraphrase'),
      a('are you open on saturday', 'hours', 'paraphrase'),
      a('what time do you shut today', 'hours', 'paraphrase'),
      a('opening hours pls', 'hours', 'short'),
      a('hours?', 'hours', 'short'),
      a('is the shop open right now', 'hours', 'indirect'),
      a('till what time can i come by', 'hours', 'indirect'),
      a('open tmrw?', 'hours', 'typo'),
      a('wann habt ihr geöffnet', 'hours', 'foreign'),
      a("horaires d'ouverture", 'hours', 'foreign'),
      a('🕐 when r u open', 'hours', 'emoji'),
      a('quick question about helmets', 'ask', 'paraphrase'),
      a('do you sell kids bikes', 'ask', 'indirect'),
      a('I want to know if you rent bikes', 'ask', 'indirect'),
      a('got a qestion', 'ask', 'typo'),
      a('question', 'ask', 'short'),
      a('una pregunta', 'ask', 'foreign'),
      a('asdfgh', null, 'none'),
      a('ok', null, 'none'),
      a('👍', null, 'none'),
      a('hello', null, 'none'),
      a('thanks', null, 'none'),
      a("what's the weather like", null, 'none'),
      a('I love pizza', null, 'none'),
      a('lol', null, 'none'),
      a('?', null, 'none'),
      a('who won the football match', null, 'none'),
      a('my cat is sick', null, 'none'),
    ],
  },
  {
    name: 'pizzeria',
    prompt: 'What would you like to do?',
    options: [
      {
        id: 'order',
        title: 'Order food for delivery',
        examples: ['I want to order', 'order a pizza', 'get food delivered'],
      },
      {
        id: 'reserve',
        title: 'Reserve a table',
        examples: ['book a table', 'reservation for tonight', 'table for two'],
      },
      {
        id: 'menu',
        title: 'See the menu',
        examples: ['what do you serve', 'show me the dishes', 'vegetarian options'],
      },
      {
        id: 'track',
        title: 'Track my order',
        examples: ['where is my food', 'my delivery is late', 'order status'],
      },
    ],
    answers: [
      a('can I get two margheritas delivered', 'order', 'paraphrase'),
      a("I'm hungry, send me some food", 'order', 'indirect'),
      a('i wanna order', 'order', 'short'),
      a('ordering pizza pls 🍕', 'order', 'emoji'),
      a('delivery to my flat please', 'order', 'paraphrase'),
      a("I'd like a takeaway", 'order', 'paraphrase'),
      a('orderr food', 'order', 'typo'),
      a('je voudrais commander une pizza', 'order', 'foreign'),
      a('table for 4 at 8pm', 'reserve', 'paraphrase'),
      a('can we book for saturday night', 'reserve', 'paraphrase'),
      a('do you have space for six people tonight', 'reserve', 'indirect'),
      a('reserve', 'reserve', 'short'),
      a('I want to make a reservation', 'reserve', 'paraphrase'),
      a('reservar una mesa para dos', 'reserve', 'foreign'),
      a('tisch für zwei bitte', 'reserve', 'foreign'),
      a("we're coming for dinner friday, 3 of us", 'reserve', 'indirect'),
      a('resrvation', 'reserve', 'typo'),
      a("what's on the menu", 'menu', 'paraphrase'),
      a('do you have vegan dishes', 'menu', 'indirect'),
      a('what pizzas do you have', 'menu', 'paraphrase'),
      a('menu', 'menu', 'short'),
      a('prices?', 'menu', 'short'),
      a('gluten free options?', 'menu', 'indirect'),
      a("la carte s'il vous plaît", 'menu', 'foreign'),
      a("where's my order", 'track', 'paraphrase'),
      a("my food hasn't arrived", 'track', 'indirect'),
      a('how long until my delivery gets here', 'track', 'paraphrase'),
      a("it's been an hour!!", 'track', 'indirect'),
      a('status of order 4411', 'track', 'paraphrase'),
      a('dónde está mi pedido', 'track', 'foreign'),
      a('still waiting for my pizza 😡', 'track', 'emoji'),
      a('wher is my oder', 'track', 'typo'),
      a('qwerty', null, 'none'),
      a('yes', null, 'none'),
      a('no', null, 'none'),
      a('hmm', null, 'none'),
      a('are you a robot', null, 'none'),
      a('I need a taxi', null, 'none'),
      a('🤷', null, 'none'),
      a('good morning', null, 'none'),
      a('...', null, 'none'),
      a('order a pizza or book a table, not sure', null, 'ambiguous'),
    ],
  },
  {
    name: 'clinic',
    prompt: 'How can we help you today?',
    options: [
      {
        id: 'book',
        title: 'Book an appointment',
        examples: ['see a doctor', 'make an appointment', 'I need a check-up'],
      },
      {
        id: 'change',
        title: 'Cancel or move an appointment',
        examples: ['cancel my appointment', 'reschedule', "I can't make it"],
      },
      {
        id: 'results',
        title: 'Test results',
        examples: ['my blood test results', 'are my results ready', 'lab results'],
      },
      {
        id: 'prescription',
        title: 'Repeat prescription',
        examples: ['renew my medication', 'refill', 'repeat prescription for my pills'],
      },
    ],
    answers: [
      a('I need to see a doctor this week', 'book', 'paraphrase'),
      a('can I get an appointment with Dr Patel', 'book', 'paraphrase'),
      a('my throat hurts, can someone see me', 'book', 'indirect'),
      a('apointment pls', 'book', 'typo'),
      a('book me in', 'book', 'short'),
      a('new appointment', 'book', 'short'),
      a('je voudrais un rendez-vous', 'book', 'foreign'),
      a("I can't come on Tuesday", 'change', 'indirect'),
      a('need to move my appointment to next week', 'change', 'paraphrase'),
      a('cancel', 'change', 'short'),
      a('please cancel my booking for tomorrow', 'change', 'paraphrase'),
      a('can I change the time of my visit', 'change', 'paraphrase'),
      a("I won't make it today, sorry", 'change', 'indirect'),
      a('cancelar mi cita', 'change', 'foreign'),
      a('did my blood work come back', 'results', 'indirect'),
      a('results of my x-ray?', 'results', 'paraphrase'),
      a('any news on my test', 'results', 'indirect'),
      a('test reslts', 'results', 'typo'),
      a('are the lab results in', 'results', 'paraphrase'),
      a('Ergebnisse meines Bluttests', 'results', 'foreign'),
      a("I'm running out of my inhaler", 'prescription', 'indirect'),
      a('need more of my blood pressure tablets', 'prescription', 'indirect'),
      a('refill please', 'prescription', 'short'),
      a('can you renew my prescription', 'prescription', 'paraphrase'),
      a('repeat meds', 'prescription', 'short'),
      a('💊 refill', 'prescription', 'emoji'),
      a('renouveler mon ordonnance', 'prescription', 'foreign'),
      a('asdf', null, 'none'),
      a('ok thanks', null, 'none'),
      a("what's your name", null, 'none'),
      a('i like turtles', null, 'none'),
      a('hello?', null, 'none'),
      a('123', null, 'none'),
      a("what's 2+2", null, 'none'),
      a('cancel my appointment and book a new one', null, 'ambiguous'),
    ],
  },
  {
    name: 'telecom',
    prompt: 'Choose an option:',
    options: [
      {
        id: 'bill',
        title: 'Pay my bill',
        examples: ['pay my invoice', 'how much do I owe', 'billing question'],
      },
      {
        id: 'internet',
        title: 'Internet not working',
        examples: ['no connection', 'wifi is down', 'slow internet'],
      },
      {
        id: 'plan',
        title: 'Change my plan',
        examples: ['upgrade my plan', 'more data', 'switch to a cheaper plan'],
      },
      {
        id: 'agent',
        title: 'Talk to an agent',
        examples: ['speak to a human', 'customer service representative', 'talk to someone'],
      },
    ],
    answers: [
      a('I want to pay', 'bill', 'short'),
      a('how much is my bill this month', 'bill', 'paraphrase'),
      a('why was I charged twice', 'bill', 'indirect'),
      a('pay bil', 'bill', 'typo'),
      a('💳 payment', 'bill', 'emoji'),
      a('where do I pay my invoice', 'bill', 'paraphrase'),
      a('payer ma facture', 'bill', 'foreign'),
      a('my router keeps dropping', 'internet', 'indirect'),
      a('no internet since this morning', 'internet', 'paraphrase'),
      a('the wifi is super slow', 'internet', 'paraphrase'),
      a('cant connect', 'internet', 'typo'),
      a('internet down!!!', 'internet', 'short'),
      a('el internet no funciona', 'internet', 'foreign'),
      a('kein Internet', 'internet', 'foreign'),
      a('I need more data', 'plan', 'paraphrase'),
      a('can I get a cheaper package', 'plan', 'paraphrase'),
      a('upgrade', 'plan', 'short'),
      a('what plans do you have', 'plan', 'indirect'),
      a('I want unlimited calls', 'plan', 'indirect'),
      a('cambiar mi plan', 'plan', 'foreign'),
      a('can I talk to a real person', 'agent', 'paraphrase'),
      a('human please', 'agent', 'short'),
      a('operator', 'agent', 'short'),
      a('I want to speak with someone', 'agent', 'paraphrase'),
      a('get me a persn', 'agent', 'typo'),
      a('this bot is useless, a human!', 'agent', 'indirect'),
      a('parler à un conseiller', 'agent', 'foreign'),
      a('zzz', null, 'none'),
      a('ok', null, 'none'),
      a('cool', null, 'none'),
      a('what time is it', null, 'none'),
      a('tell me a joke', null, 'none'),
      a('🙂', null, 'none'),
      a('bye', null, 'none'),
    ],
  },
  {
    name: 'airline',
    prompt: 'What do you need help with?',
    options: [
      {
        id: 'status',
        title: 'Flight status',
        examples: ['is my flight on time', 'delayed flight', 'departure time'],
      },
      {
        id: 'change',
        title: 'Change my booking',
        examples: ['change my flight', 'move to another date', 'rebook'],
      },
      {
        id: 'baggage',
        title: 'Baggage',
        examples: ['lost luggage', 'how many bags can I bring', 'baggage allowance'],
      },
      {
        id: 'refund',
        title: 'Refund',
        examples: ['get my money back', 'refund a cancelled flight', 'reimbursement'],
      },
    ],
    answers: [
      a('is BA123 delayed?', 'status', 'paraphrase'),
      a('what time does my flight leave', 'status', 'paraphrase'),
      a('status of tomorrows flight', 'status', 'paraphrase'),
      a('is my flight on tiem', 'status', 'typo'),
      a('when does the plane from Madrid land', 'status', 'indirect'),
      a("mon vol est-il à l'heure", 'status', 'foreign'),
      a('✈️ delayed?', 'status', 'emoji'),
      a('I need to fly a day later', 'change', 'indirect'),
      a('can I switch to the evening flight', 'change', 'paraphrase'),
      a('change booking', 'change', 'short'),
      a('move my trip to next week', 'change', 'paraphrase'),
      a('cambiar mi vuelo', 'change', 'foreign'),
      a('chnage my flihgt', 'change', 'typo'),
      a("my suitcase didn't arrive", 'baggage', 'indirect'),
      a('can I bring my bike on the plane', 'baggage', 'indirect'),
      a('how heavy can my bag be', 'baggage', 'paraphrase'),
      a('lost bag', 'baggage', 'short'),
      a('🧳 missing', 'baggage', 'emoji'),
      a('mein Koffer ist weg', 'baggage', 'foreign'),
      a('I want my money back', 'refund', 'paraphrase'),
      a('my flight was cancelled, can I get a refund', 'refund', 'paraphrase'),
      a('refund pls', 'refund', 'short'),
      a('how do I claim compensation', 'refund', 'indirect'),
      a('reembolso', 'refund', 'foreign'),
      a('rembourser mon billet', 'refund', 'foreign'),
      a('hi there', null, 'none'),
      a('nope', null, 'none'),
      a("what's the capital of france", null, 'none'),
      a('xyz', null, 'none'),
      a('I like trains', null, 'none'),
      a('ok cool', null, 'none'),
      a('refund or change my flight?', null, 'ambiguous'),
    ],
  },
];
