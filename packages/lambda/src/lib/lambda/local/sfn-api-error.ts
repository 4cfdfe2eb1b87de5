/** An error answered in the Step Functions JSON protocol (`__type`). */
export class SfnApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message)
  }
}
