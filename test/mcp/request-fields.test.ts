import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { datesIn } from '../../src/driver/text.ts';
import { daysFromNow, FLIGHT_PROFILE, PROFILE, startTestService, type TestService } from '../helpers/service.ts';
import { mcpClient, textOf } from '../helpers/mcp.ts';
import { until } from '../helpers/wait.ts';
import { venue } from '../executor/helpers.ts';

// The request fields of #16 honoured through the MCP booking tools, end to end in the sandbox: a
// round trip for three passengers, targetPrice met and missed, a hotel's star_rating, and a restaurant found by cuisine when the
// one named is missing (allowVenueSwitch is the default).

describe('MCP booking tools honour every request field', { timeout: 5 * 60_000 }, () => {
  let service: TestService;
  let mcp: Awaited<ReturnType<typeof mcpClient>>;
  before(async () => {
    service = await startTestService('pglite:memory:', { WORKERS: '3' }, { sandbox: true });
    mcp = await mcpClient(service.url, await service.mintKey());
  });
  after(async () => {
    await mcp?.close();
    await service?.close();
  });

  async function settled(booked: any): Promise<{ jobId: string; status: string; summary: string }> {
    const { jobId } = textOf(booked);
    let status: any;
    await until('the run paused or ended', async () => !['queued', 'running'].includes((status = textOf(await mcp.client.callTool({ name: 'get_job_status', arguments: { jobId } }))).status), 120_000, 200);
    return { jobId, status: status.status, summary: status.summary };
  }

  test('book_flight: a round trip for three passengers is held as one return fare for all three', async () => {
    const out = daysFromNow(20);
    const back = daysFromNow(24);
    const others = [
      { first_name: 'Alan', last_name: 'Turing', dob: '1982-06-23', passport_number: 'AT1912062', passport_country: 'GB' },
      { first_name: 'Grace', last_name: 'Hopper', dob: '1976-12-09', passport_number: 'P9876543', passport_country: 'US' },
    ];
    const job = await settled(await mcp.client.callTool({ name: 'book_flight', arguments: { origin: 'LHR', dest: 'JFK', date: out, return_date: back, passengers: 3, targetDepartureTime: '10:00', profile: { ...FLIGHT_PROFILE, additional_travellers: others }, consent: { allowedProviders: ['skyfare'] } } }));
    assert.equal(job.status, 'paused_payment', job.summary);
    assert.deepEqual([...new Set(datesIn(job.summary).filter((d) => d === out || d === back))], [out, back], job.summary);
    assert.match(job.summary, /3 passengers/);
    const held = service.sandbox!.passengersHeld().filter((h) => h.provider === 'skyfare').at(-1)!;
    assert.deepEqual(held.passengers.map((p) => p.familyName), [FLIGHT_PROFILE.last_name, 'Turing', 'Hopper']);
    await service.services.executor.holds.get(job.jobId)?.cancel();
  });

  test('book_flight: targetPrice is the fare ceiling, met and missed', async () => {
    const flight = { origin: 'LHR', dest: 'JFK', date: daysFromNow(21), passengers: 1, profile: FLIGHT_PROFILE, consent: { allowedProviders: ['jetdeck'] } };
    const met = await settled(await mcp.client.callTool({ name: 'book_flight', arguments: { ...flight, targetPrice: 100_000 } }));
    assert.equal(met.status, 'paused_payment', met.summary);
    await service.services.executor.holds.get(met.jobId)?.cancel();
    const missed = await settled(await mcp.client.callTool({ name: 'book_flight', arguments: { ...flight, targetPrice: 1 } }));
    assert.equal(missed.status, 'error', 'MCP reports no_availability as an error with its reason');
    assert.match(missed.summary, /targetPrice of 1 per passenger/);
  });

  test('book_hotel: star_rating is a minimum read from the site', async () => {
    const low = await settled(await mcp.client.callTool({ name: 'book_hotel', arguments: { hotel_name: venue('2-Star Lodge'), city: 'Paris', checkin: daysFromNow(10), checkout: daysFromNow(12), adults: 2, star_rating: 4, profile: PROFILE, consent: { allowedProviders: ['roomly'] } } }));
    assert.equal(low.status, 'error', 'MCP reports no_availability as an error with its reason');
    assert.match(low.summary, /rated 2 stars, below the star_rating of at least 4 asked/);
  });

  test('book_restaurant: the venue named is missing; the suggestion with the cuisine asked is booked', async () => {
    const job = await settled(await mcp.client.callTool({ name: 'book_restaurant', arguments: { restaurant_name: venue('Missing Noma'), city: 'Copenhagen', date: daysFromNow(8), time: '19:30', covers: 2, cuisine: 'French', profile: PROFILE, consent: { allowedProviders: ['tablebook'] } } }));
    assert.equal(job.status, 'paused_payment', job.summary);
    assert.match(job.summary, /Bistro Lumière/);
    const audit = textOf(await mcp.client.callTool({ name: 'get_job_audit', arguments: { jobId: job.jobId } }));
    const switched = audit.events.find((e: any) => e.type === 'venue_switched');
    assert.equal(switched.toVenue, 'Bistro Lumière');
    await service.services.executor.holds.get(job.jobId)?.cancel();
  });
});
