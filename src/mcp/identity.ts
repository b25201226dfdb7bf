import { VERSION } from '../version.ts';

// Who the server says it is, and how a model should use it: the same under every revision.

export const SERVER_INFO = { name: 'concierge', title: 'Concierge', version: VERSION };

export const INSTRUCTIONS =
  'Concierge books restaurants, hotels, flights and activities for the user. Start a booking with book_restaurant, book_hotel, book_flight or book_activity: it returns a jobId at once. ' +
  'Then call get_job_status every 15 to 30 seconds until the booking is done (give the user the confirmationCode) or stops. ' +
  'Concierge never pays: when a charge is due the job stops at paused_payment and the user completes the payment through the handoffUrl. get_job_audit explains the decisions taken.';
