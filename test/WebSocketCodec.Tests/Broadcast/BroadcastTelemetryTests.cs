using System.Diagnostics.Metrics;

namespace WebSocketCodec.Tests.Broadcast;

/// <summary>Broadcasts are counted under the meter <c>WebSocketCodec</c>: broadcasts, recipients, members skipped and
/// members closed by the slow-member policy, and the bytes queued against the process's budget.</summary>
public sealed class BroadcastTelemetryTests
{
    [Fact]
    public void BroadcastsRecipientsSkipsAndClosesAreCounted()
    {
        var totals = new Dictionary<string, long>();
        using var meters = new MeterListener();
        meters.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == WebSocketTelemetry.Name && instrument.Name.StartsWith("websocketcodec.broadcast", StringComparison.Ordinal))
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        meters.SetMeasurementEventCallback<long>((instrument, value, _, _) =>
        {
            lock (totals)
            {
                totals[instrument.Name] = totals.GetValueOrDefault(instrument.Name) + value;
            }
        });
        meters.Start();

        var skipping = new WebSocketGroup(SlowMemberPolicy.Skip);
        var closing = new WebSocketGroup(SlowMemberPolicy.Close);
        skipping.Add(new FakeMember());
        skipping.Add(new FakeMember { Writable = false });
        closing.Add(new FakeMember());
        closing.Add(new FakeMember(hardLimit: 4096) { Writable = false, OutputPending = 4096 }); // at its hard limit: closed
        var queuing = new WebSocketGroup(SlowMemberPolicy.Close); // the process's budget
        var busy = new FakeMember { Busy = true };
        queuing.Add(busy);
        skipping.Broadcast(WebSocketOpcode.Binary, [1]);
        closing.Broadcast(WebSocketOpcode.Binary, [2]);
        queuing.Broadcast(WebSocketOpcode.Binary, new byte[1000]); // queued: at least 1,000 bytes held
        meters.RecordObservableInstruments();

        lock (totals)
        {
            // Other tests may broadcast meanwhile: at least these.
            Assert.True(totals.GetValueOrDefault("websocketcodec.broadcasts") >= 2);
            Assert.True(totals.GetValueOrDefault("websocketcodec.broadcast.recipients") >= 2);
            Assert.True(totals.GetValueOrDefault("websocketcodec.broadcast.skipped") >= 1);
            Assert.True(totals.GetValueOrDefault("websocketcodec.broadcast.closed") >= 1);
            Assert.True(totals.GetValueOrDefault("websocketcodec.broadcast.queued") >= 1000);
        }

        busy.Run();
    }
}
