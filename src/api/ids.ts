/** The shape of the UUIDs the service hands out (bots, accounts, handoffs, …), any case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
