using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using System.Globalization;

namespace WebSocketCodec.Broadcast.Server;

/// <summary>
/// Which types a server allocates, for <c>--allocation-types</c>: the runtime's allocation tick (an event about every
/// 100 KB allocated, naming the type that crossed the mark), summed by type. Its own event payloads allocate a little,
/// so it is off unless asked for.
/// </summary>
internal sealed class AllocationTypes : EventListener
{
    private const int AllocationTick = 10;
    private ConcurrentDictionary<string, long> _bytes = new();

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
        {
            EnableEvents(eventSource, EventLevel.Verbose, (EventKeywords)0x1); // GC
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (eventData.EventId == AllocationTick && eventData.Payload is { } payload && eventData.PayloadNames is { } names
            && names.IndexOf("TypeName") is >= 0 and int type && payload[type] is string name)
        {
            int amount = names.IndexOf("AllocationAmount64");
            long bytes = amount >= 0 ? Convert.ToInt64(payload[amount], CultureInfo.InvariantCulture) : 100_000;
            _bytes.AddOrUpdate(name, bytes, (_, total) => total + bytes);
        }
    }

    /// <summary>Forgets what was sampled so far.</summary>
    public void Reset() => Interlocked.Exchange(ref _bytes, new ConcurrentDictionary<string, long>());

    /// <summary>The sampled types, most bytes first, as <c>Type ~N KB</c> (at most five).</summary>
    public string Summary() => string.Join("; ", _bytes.ToArray().OrderByDescending(s => s.Value).Take(5)
        .Select(s => string.Create(CultureInfo.InvariantCulture, $"{s.Key} ~{s.Value / 1000} KB")));
}
