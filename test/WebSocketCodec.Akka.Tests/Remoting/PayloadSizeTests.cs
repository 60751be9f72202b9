using System.Globalization;
using System.Text.RegularExpressions;
using Akka.Actor;
using Akka.Event;
using Akka.TestKit;

namespace WebSocketCodec.Akka.Tests.Remoting;

/// <summary>
/// maximum-frame-size bounds the Akka PDU (one websocket message): the largest user payload whose PDU fits is
/// delivered, one byte more is dropped by Akka's endpoint writer with the error logged, and the association stays up.
/// </summary>
public sealed partial class PayloadSizeTests() : TwoNodeSpec("maximum-frame-size = 32000b")
{
    private const int MaximumFrameSize = 32000;
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task The_largest_payload_whose_PDU_fits_is_delivered()
    {
        (IActorRef length, TestProbe errors, int largest) = await SizedAsync();

        length.Tell(new byte[largest], TestActor);

        Assert.Equal(largest, ExpectMsg<int>(Wait));
        errors.ExpectNoMsg(TimeSpan.FromMilliseconds(300)); // and nothing was logged as dropped
    }

    [Fact]
    public async Task One_byte_more_is_dropped_with_the_error_logged_and_the_association_stays_up()
    {
        (IActorRef length, TestProbe errors, int largest) = await SizedAsync();

        length.Tell(new byte[largest + 1], TestActor);

        Assert.Equal(MaximumFrameSize + 1, PduLength(NextOversized(errors)));
        length.Tell(new byte[10], TestActor); // the association stays up; the oversized one never arrived
        Assert.Equal(10, ExpectMsg<int>(Wait));
        errors.ExpectNoMsg(TimeSpan.FromMilliseconds(300)); // nothing else failed
    }

    /// <summary>The server's length actor, a probe on the client's errors, and the largest payload whose PDU fits.
    /// A payload as large as the limit cannot fit with its envelope; Akka's error says how large the PDU was, so the
    /// envelope's size (recipient, sender, serializer) and the largest payload that fits follow.</summary>
    private async Task<(IActorRef Length, TestProbe Errors, int Largest)> SizedAsync()
    {
        Server.ActorOf(Props.Create<LengthReply>(), "length");
        IActorRef length = await Sys.ActorSelection(new RootActorPath(ServerAddress) / "user" / "length").ResolveOne(Wait);
        TestProbe errors = CreateTestProbe();
        Sys.EventStream.Subscribe(errors, typeof(Error));
        length.Tell(new byte[MaximumFrameSize], TestActor);
        int envelope = PduLength(NextOversized(errors)) - MaximumFrameSize;
        Assert.InRange(envelope, 1, 1000);
        length.Tell(new byte[10], TestActor); // the association is up, and the PDUs that follow carry no pending ack
        Assert.Equal(10, ExpectMsg<int>(Wait));
        return (length, errors, MaximumFrameSize - envelope);
    }

    /// <summary>The next OversizedPayloadException Akka logs (an internal type: matched by name).</summary>
    private static Exception NextOversized(TestProbe errors) =>
        errors.FishForMessage<Error>(e => e.Cause?.GetType().Name == "OversizedPayloadException", Wait).Cause;

    private static int PduLength(Exception error)
    {
        Match match = EncodedSize().Match(error.Message);
        Assert.True(match.Success, error.Message);
        return int.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture);
    }

    [GeneratedRegex(@"was (\d+) bytes")]
    private static partial Regex EncodedSize();

    /// <summary>Answers a byte array with its length.</summary>
    private sealed class LengthReply : ReceiveActor
    {
        public LengthReply() => Receive<byte[]>(bytes => Sender.Tell(bytes.Length));
    }
}
