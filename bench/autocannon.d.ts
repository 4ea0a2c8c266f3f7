// autocannon ships no type declarations; the bench uses only its promise API.
declare module 'autocannon';
