namespace WebSocketCodec.Pipelines.Tests.Infrastructure;

/// <summary>Tests that measure the whole process (allocations, telemetry listeners) run one at a time, apart from the
/// rest.</summary>
[CollectionDefinition(nameof(SerialCollection), DisableParallelization = true)]
public sealed class SerialCollection;
