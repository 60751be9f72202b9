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

    /// <summary>Asserts the measurements one websocket that ended cleanly with <paramref name="status"/> (a status no
    /// other test sends) made: its close, tagged by status and cause only; and its share of the untagged counts (one
    /// connection, in and out of the active count, a frame and a message received, the bytes each way at least).</summary>
    public void AssertOneCleanEnd(int status, long bytesReceived, long bytesSent)
    {
        ContractMeasurement close = Assert.Single(Measurements, m =>
            m.Instrument == "websocketcodec.closes" && Equals(m.Tags.GetValueOrDefault("websocket.close.status"), status));
        Assert.Equal(1, close.Value);
        Assert.Equal(nameof(WebSocketEndReason.Closed), close.Tags["websocket.close.cause"]);
        Assert.Equal(["websocket.close.cause", "websocket.close.status"], close.Tags.Keys.Order());

        // The rest carries no tag that could tell websockets apart: each counted at least this websocket's share.
        Assert.True(Total("websocketcodec.connections") >= 1);
        Assert.True(Total("websocketcodec.frames.received") >= 1);
        Assert.True(Total("websocketcodec.messages.received") >= 1);
        Assert.True(Total("websocketcodec.bytes.received") >= bytesReceived);
        Assert.True(Total("websocketcodec.bytes.sent") >= bytesSent);
        Assert.Contains(Measurements, m => m.Instrument == "websocketcodec.connections.active" && m.Value == 1);
        Assert.Contains(Measurements, m => m.Instrument == "websocketcodec.connections.active" && m.Value == -1);
    }

    public void Dispose() => _listener.Dispose();
}

/// <summary>One measurement: the instrument, the value, the tags.</summary>
public sealed record ContractMeasurement(string Instrument, long Value, IReadOnlyDictionary<string, object?> Tags);
