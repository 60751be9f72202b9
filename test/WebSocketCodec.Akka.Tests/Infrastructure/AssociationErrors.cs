using Akka.Actor;
using Akka.Remote;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary>
/// Akka's own report of a failed association: the <see cref="AssociationErrorEvent"/> that remoting publishes on the
/// event stream when an outbound association to an address cannot be made. Subscribe before the association is tried.
/// </summary>
public static class AssociationErrors
{
    /// <summary>Completes with the first association error towards <paramref name="remote"/> published on
    /// <paramref name="system"/>'s event stream from now on.</summary>
    public static Task<AssociationErrorEvent> Next(ActorSystem system, Address remote)
    {
        var first = new TaskCompletionSource<AssociationErrorEvent>(TaskCreationOptions.RunContinuationsAsynchronously);
        IActorRef listener = system.ActorOf(Props.Create(() => new Listener(remote, first)));
        system.EventStream.Subscribe(listener, typeof(AssociationErrorEvent));
        return first.Task;
    }

    /// <summary>The exceptions of an error's cause chain, outermost first (inner and aggregated ones included).</summary>
    public static IEnumerable<Exception> Causes(this AssociationErrorEvent error)
    {
        var pending = new Stack<Exception>();
        pending.Push(error.Cause);
        while (pending.TryPop(out Exception? cause))
        {
            yield return cause;
            if (cause is AggregateException aggregate)
            {
                foreach (Exception inner in aggregate.InnerExceptions.Reverse())
                {
                    pending.Push(inner);
                }
            }
            else if (cause.InnerException is { } inner)
            {
                pending.Push(inner);
            }
        }
    }

    private sealed class Listener : ReceiveActor
    {
        public Listener(Address remote, TaskCompletionSource<AssociationErrorEvent> first) =>
            Receive<AssociationErrorEvent>(error =>
            {
                if (error.RemoteAddress == remote && first.TrySetResult(error))
                {
                    Context.System.EventStream.Unsubscribe(Self);
                    Context.Stop(Self);
                }
            });
    }
}
