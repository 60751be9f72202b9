using System.Collections.Concurrent;
using System.Diagnostics.Metrics;

namespace WebSocketCodec.Testing.Contract;

/// <summary>Every measurement the library's meter makes while it lives, with its tags: the process's other tests
/// measure too, so a case looks for what only its own websocket can have made (a close status it chose, say).</summary>
public sealed class ContractMetrics : IDisposable
{
    private readonly MeterListener _listener = new();

    public ContractMetrics()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == WebSocketTelemetry.Name)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            var tagged = new Dictionary<string, object?>();
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                tagged[tag.Key] = tag.Value;
            }

            Measurements.Enqueue(new ContractMeasurement(instrument.Name, value, tagged));
        });
        _listener.Start();
    }

    /// <summary>What was measured, in the order seen.</summary>
    public ConcurrentQueue<ContractMeasurement> Measurements { get; } = new();

    /// <summary>The sum of an instrument's measurements (every websocket of the process).</summary>
    public long Total(string instrument) => Measurements.Where(m => m.Instrument == instrument).Sum(m => m.Value);

    public void Dispose() => _listener.Dispose();
}

/// <summary>One measurement: the instrument, the value, the tags.</summary>
public sealed record ContractMeasurement(string Instrument, long Value, IReadOnlyDictionary<string, object?> Tags);
