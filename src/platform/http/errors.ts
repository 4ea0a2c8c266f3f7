/** Plan-limit detail object (docs/API.md "Errors"). */
export interface LimitDetail {
  message: string;
  current: number;
  max: number;
  upgrade_required: boolean;
}

/**
 * The one error type of the app: a status and the `detail` the client sees. Anything thrown that
 * is not an ApiError becomes a 500 whose detail hides the cause.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string | LimitDetail,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : detail.message);
    this.name = 'ApiError';
  }
}

export const badRequest = (detail: string) => new ApiError(400, detail);
export const notFound = (what: string) => new ApiError(404, `${what} not found`);
export const forbidden = (detail: string | LimitDetail) => new ApiError(403, detail);
export const conflict = (detail: string) => new ApiError(409, detail);
export const unauthorized = () => new ApiError(401, 'Could not validate credentials', { 'WWW-Authenticate': 'Bearer' });
export const tooManyRequests = (detail: string | LimitDetail, retryAfterS: number) =>
  new ApiError(429, detail, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) });
export const paymentRequired = (detail: string) => new ApiError(402, detail);
