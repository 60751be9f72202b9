using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using System.Globalization;

namespace WebSocketCodec.PerfTest;

/// <summary>
/// Says what a server allocates: the runtime's allocation sampling event (one per about 100 KB allocated, with the
/// type that crossed the mark) counted by type. Nothing is sampled while nothing is allocated, so it costs the
/// allocation-free variants nothing.
/// </summary>
internal sealed class AllocationSampler : EventListener
{
    private const int AllocationTickEvent = 10;
    private const EventKeywords GcKeyword = (EventKeywords)0x1;
    private ConcurrentDictionary<string, long> _bytesByType = new();

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
        {
            EnableEvents(eventSource, EventLevel.Verbose, GcKeyword);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (eventData.EventId != AllocationTickEvent || eventData.Payload is null || eventData.PayloadNames is null)
        {
            return;
        }

        int typeIndex = eventData.PayloadNames.IndexOf("TypeName");
        int amountIndex = eventData.PayloadNames.IndexOf("AllocationAmount64");
        if (typeIndex >= 0 && eventData.Payload[typeIndex] is string type)
        {
            long amount = amountIndex >= 0 ? Convert.ToInt64(eventData.Payload[amountIndex], CultureInfo.InvariantCulture) : 100_000;
            _bytesByType.AddOrUpdate(type, amount, (_, total) => total + amount);
        }
    }

    /// <summary>The sampled types since the last call, largest first, as <c>Type:percent</c> joined by commas
    /// (<c>-</c> when nothing was sampled); then starts over.</summary>
    public string TakeSummary()
    {
        // Swap in a fresh table, then copy with ToArray, which locks the table (a collection expression copies
        // through ICollection.CopyTo, which throws when an event adds an entry between its count and its copy).
        KeyValuePair<string, long>[] samples = Interlocked.Exchange(ref _bytesByType, new ConcurrentDictionary<string, long>()).ToArray();
        long total = samples.Sum(s => s.Value);
        if (total == 0)
        {
            return "-";
        }

        return string.Join(',', samples.OrderByDescending(s => s.Value).Take(3)
            .Select(s => string.Create(CultureInfo.InvariantCulture, $"{s.Key.Replace(' ', '_').Replace(',', ';')}:{100.0 * s.Value / total:F0}%")));
    }
}
