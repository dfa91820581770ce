export * from './documents.js';
export * from './quote.js';
export * from './search.js';
