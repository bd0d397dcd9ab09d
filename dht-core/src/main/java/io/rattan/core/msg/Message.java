package io.rattan.core.msg;

/**
 * Every message of the peer and client protocols. Records, immutable, compared by value.
 * Java 17 has no pattern switch: dispatch on {@link #type()}.
 */
public sealed interface Message permits Messages.Ping, Messages.Pong, Messages.HopAck, Messages.Hello, Messages.Challenge,
        Messages.ChallengeAnswer, Messages.Welcome, Messages.JoinRequest,
        Messages.JoinInfo, Messages.LeafExchange, Messages.Leave, Messages.LeafExchangeReply, Messages.PutRequest,
        Messages.GetRequest, Messages.RemoveRequest, Messages.PutReply, Messages.GetReply, Messages.RemoveReply,
        Messages.StoreReplicas, Messages.StoreAck, Messages.PutAck, Messages.RemoveAck, Messages.RemoveReplica,
        Messages.RemoveReplicaReply,
        Messages.Digest, Messages.DigestWant, Messages.RangeDigest, Messages.RangeDigestReply, Messages.ReplicaRead,
        Messages.ReplicaReadReply, Messages.ClientPut,
        Messages.ClientGet, Messages.ClientRemove, Messages.ClientRing, Messages.RingReply,
        Messages.ErrorReply, Messages.IterativeGet, Messages.IterativeGetReply, Messages.Watch, Messages.WatchAck,
        Messages.WatchChange, Messages.ClientWatch, Messages.ClientUnwatch, Messages.WatchEvent, Messages.InNamespace,
        Messages.NamespaceDefs, Messages.NamespaceQuery {

    MessageType type();
}
