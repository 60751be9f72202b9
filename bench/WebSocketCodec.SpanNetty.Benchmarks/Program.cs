using WebSocketCodec.SpanNetty.Benchmarks;

// dotnet run -c Release --project bench/WebSocketCodec.SpanNetty.Benchmarks -p:WithSpanNetty=true -- --filter '*'
// (reports copied to bench/results); -- --validate runs each benchmark once in process.
return SpanNettyBenchmarkEntry.Run(args, SpanNettyBenchmarkEntry.Benchmarks);
