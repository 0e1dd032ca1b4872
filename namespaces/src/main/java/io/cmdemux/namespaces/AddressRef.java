package io.cmdemux.namespaces;

import io.cmdemux.netdev.Address;

/** An address and the link that holds it. */
public record AddressRef(LinkRef link, Address address) {}
