//! Installed instrumentation manifests (`wevtutil im` / `wevtutil um`) and the payload
//! filters built against them (`TdhCreatePayloadFilter`, FLT-18).
//!
//! A payload filter names a manifest event and fields of its template, so building one
//! needs the provider's manifest: on Windows TDH reads the installed publisher's metadata;
//! here [`Kernel::install_manifest`] puts a parsed [`Manifest`]'s providers in the kernel's
//! table and [`Kernel::create_payload_filter`] (or the [`PayloadFilterBuilder`] of
//! [`Kernel::payload_filter`]) looks the event up there. The filter it returns carries the
//! event's template, as Windows's compiled filter carries its payload decoder, so the event
//! path evaluates it without the table: uninstalling a manifest does not change what an
//! enabled session filters.
//!
//! ```
//! use etwsim_decode::manifest::filter::{AggregateFilter, PayloadOperator};
//! use etwsim_decode::manifest::load_manifest;
//! use etwsim_kernel::{EnableParams, EventFilter, Kernel};
//! use etwsim_types::{EventDescriptor, Keyword, Level};
//!
//! let xml = r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
//!  <instrumentation><events>
//!   <provider name="Demo" guid="{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}" symbol="DEMO">
//!    <templates><template tid="T"><data name="Size" inType="win:UInt32"/></template></templates>
//!    <events><event value="1" version="0" level="win:Informational" template="T"/></events>
//!   </provider>
//!  </events></instrumentation>
//! </instrumentationManifest>"#;
//! let k = Kernel::builder().deterministic(1).build()?;
//! k.install_manifest(&load_manifest(xml.as_bytes()).unwrap())?;
//! let guid = "{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}".parse().unwrap();
//! let read = EventDescriptor::new(1, Level::INFORMATION, Keyword(0));
//! let big = k
//!     .payload_filter(guid, &read)
//!     .field("Size", PayloadOperator::Gt, 100)
//!     .build()?;
//! let filter = EventFilter::payload(&AggregateFilter::new(vec![(big, false)]).unwrap());
//! let s = k.session("s").start()?;
//! s.enable(guid, &EnableParams::new().filter(filter))?;
//! # Ok::<(), etwsim_kernel::Error>(())
//! ```

use etwsim_decode::manifest::Provider as ManifestProvider;
use etwsim_types::Guid;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One kernel's installed providers, by GUID (`KernelInner::manifests`).
pub(crate) type ManifestTable = BTreeMap<Guid, Arc<ManifestProvider>>;
