/**
 * What a platform's refusal code means (docs/analytics.md#the-service-users-got), for the codes
 * operators meet most; the Analytics and Operations pages both show it beside the code.
 */
const MEANINGS: Record<string, string> = {
  '400': 'the platform refused the request (a chat that does not exist, a message too long)',
  '403': 'the user blocked the bot, or the bot may not write to them',
  '131047': 'more than 24 hours since the user wrote: only a template may be sent',
  '131026': 'the message could not be delivered to this number',
  '131051': 'a message type the platform does not take',
  unshowable: 'a web message without a URL',
};

export function refusalMeaning(code: string): string {
  return MEANINGS[code] ?? 'see the platform’s error codes';
}
