/** The server's field lengths, from the file its schemas read (one home: the inputs' maxLength follows it). */
export { FIELD_MAX } from '../../src/modules/field-limits.js';
