// `npm run bench` is filled by the "Benchmarks" issue (see ARCHITECTURE.md "Benchmarks").
console.log(JSON.stringify({ bench: 'none', note: 'benchmarks arrive with the Benchmarks issue' }));
