/**
 * Checked by `tsc -p admin-ui`, never bundled (nothing imports it): the api helpers refuse a path
 * or method the API does not have. Each `@ts-expect-error` fails the check if its line compiles.
 */
import { api, download, get } from './api.js';

export function pathsAreTyped(id: string): void {
  // answered routes, a parameter and a query string
  void get(`/api/chatbots/${id}`);
  void api('PUT', `/api/chatbots/${id}`, { name: 'x' });
  void get(`/api/chat/conversations/${id}?status=active`);
  void download('/api/leads/export.csv', 'leads.csv');
  // @ts-expect-error a misspelt route
  void get(`/api/chatbot/${id}`);
  // @ts-expect-error a route that does not answer this method
  void api('DELETE', '/api/auth/login');
  // @ts-expect-error a path below a route that is not one
  void api('POST', `/api/chatbots/${id}/nonsense`);
}
