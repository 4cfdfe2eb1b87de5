/** AWS refuses a reservation that would leave fewer than this many executions unreserved. */
export const MIN_UNRESERVED_CONCURRENCY = 100

/** What GetAccountSettings says about concurrency. */
export interface AccountConcurrency {
  /** Concurrent executions of the account in this region (10 on a new account, 1,000 by default). */
  total: number
  /** What functions without a reservation share. */
  unreserved: number
}

export interface Notice {
  code: string
  message: string
}

const QUOTA_FIX = 'ask AWS for a higher "Concurrent executions" quota (Service Quotas console > AWS Lambda > Concurrent executions), then deploy again with --concurrency'

/**
 * Whether `--concurrency` can be reserved: only while at least 100 executions stay unreserved
 * (AWS's rule), counting back what the function reserves already. Otherwise nothing is reserved
 * and the function shares the account's pool, which a notice says, with the quota to ask for.
 * Without the account's settings (no permission to read them) the reservation is attempted.
 */
export function planReservation(requested: number | undefined, account: AccountConcurrency | undefined, currentlyReserved = 0): {reserve?: number; notice?: Notice} {
  if (requested === undefined || !account) return {reserve: requested}
  const available = account.unreserved + currentlyReserved
  if (available - requested >= MIN_UNRESERVED_CONCURRENCY) return {reserve: requested}
  const most = Math.max(0, available - MIN_UNRESERVED_CONCURRENCY)
  return {
    notice: {
      code: 'concurrency-not-reserved',
      message:
        `--concurrency ${requested} is not reserved: the account runs ${account.total} functions at once and AWS keeps at least ${MIN_UNRESERVED_CONCURRENCY} unreserved, ` +
        `so ${most === 0 ? 'nothing' : `at most ${most}`} can be reserved here. The function shares the account's pool of ${account.unreserved} instead; ${QUOTA_FIX}`,
    },
  }
}

/** The reservation refusal AWS gives when the account's settings could not be read first. */
export function reservationRefused(error: unknown, requested: number): Notice | undefined {
  const {name, message} = error as {name?: string; message?: string}
  if (name !== 'InvalidParameterValueException' || !/unreserved/i.test(message ?? '')) return undefined
  return {code: 'concurrency-not-reserved', message: `--concurrency ${requested} is not reserved: AWS refused it (${message}). The function shares the account's pool instead; ${QUOTA_FIX}`}
}

/**
 * The memory cap AWS names when it refuses a function's MemorySize ("Member must have value less
 * than or equal to 3008", as on new accounts), or undefined for any other error.
 */
export function memoryCapOf(error: unknown): number | undefined {
  const {name, message} = error as {name?: string; message?: string}
  if (!/InvalidParameterValue|Validation/.test(name ?? '') || !/MemorySize/i.test(message ?? '')) return undefined
  const stated = /less than or equal to (\d+)/i.exec(message ?? '')
  return stated ? Number(stated[1]) : 3008
}
