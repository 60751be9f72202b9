return WebSocketCodec.Benchmarks.BenchmarkEntry.Run(args);
