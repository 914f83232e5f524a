/**
 * The conversations list's filters: kept in the page URL, turned into the admin API's query with
 * whole local days, and refused in words when they cannot be used.
 */
import { expect } from 'chai';
import {
  conversationsApiQuery,
  dayStart,
  filtersFromSearch,
  filtersProblem,
  filtersToSearch,
} from '../../console/src/pages/conversations/conversation-filters.ts';

describe('conversation filters', () => {
  it('when filters go into the URL and back, then they are the same, empty ones left out', () => {
    const filters = { channelType: 'web', from: '2026-11-01', to: '2026-11-24', q: 'refund' };
    const search = filtersToSearch({ ...filters, chatId: '  ' });
    expect(search.toString()).to.equal('channel=web&from=2026-11-01&to=2026-11-24&q=refund');
    expect(filtersFromSearch(search)).to.deep.equal(filters);
  });

  it('when the URL has unknown or blank parameters, then they are no filters', () => {
    expect(filtersFromSearch(new URLSearchParams('q=%20&foo=bar&chat=42'))).to.deep.equal({
      chatId: '42',
    });
  });

  it('when days are given, then from is the start of the first and to the start of the day after the last', () => {
    const query = conversationsApiQuery({ from: '2026-11-01', to: '2026-11-24' }, 25);
    expect(query.from).to.equal(new Date(2026, 10, 1).toISOString());
    expect(query.to).to.equal(new Date(2026, 10, 25).toISOString());
    expect(query.limit).to.equal(25);
  });

  it('when the last day is the last of a month, then to rolls into the next month', () => {
    const query = conversationsApiQuery({ to: '2026-12-31' }, 10);
    expect(query.to).to.equal(new Date(2027, 0, 1).toISOString());
  });

  it('when every filter and a cursor are set, then the API query names each', () => {
    const query = conversationsApiQuery(
      { channelType: 'telegram', q: 'late order', chatId: '99' },
      25,
      'abc',
    );
    expect(query).to.deep.equal({
      limit: 25,
      channel_type: 'telegram',
      q: 'late order',
      chat_id: '99',
      after: 'abc',
    });
  });

  it('when a day does not exist or from is after to, then the problem is named', () => {
    expect(dayStart('2026-02-31')).to.equal(undefined);
    expect(dayStart('yesterday')).to.equal(undefined);
    expect(filtersProblem({ from: '2026-02-31' })).to.match(/from/);
    expect(filtersProblem({ from: '2026-11-24', to: '2026-11-01' })).to.match(/after/);
    expect(filtersProblem({ from: '2026-11-01', to: '2026-11-01' })).to.equal(undefined);
    expect(conversationsApiQuery({ from: 'nonsense' }, 5)).to.not.have.property('from');
  });
});
